// A real Parley server for the crash test, for builds without the sessions module: it starts
// exactly like `parley serve` and then links the sessions named in PARLEY_TEST_LINK (the part
// the session manager plays after a restart: reconnecting sessions that were connected).
import { loadConfig } from "../../../src/config.ts";
import { createLogger } from "../../../src/log.ts";
import type { SimDriver } from "../../../src/network/sim/driver.ts";
import { startServer } from "../../../src/server.ts";

const argv = process.argv.slice(2);
const flag = (name: string) => argv[argv.indexOf(name) + 1];
const config = loadConfig({ port: flag("--port"), dataDir: flag("--data-dir"), network: "sim", logFormat: "json" }, process.env);
const server = await startServer(config, createLogger({ level: config.logLevel, format: "json" }));
const sim = server.runtime.deps.network as SimDriver;
for (const pair of (process.env.PARLEY_TEST_LINK ?? "").split(",").filter(Boolean)) {
  const [sessionId, phone] = pair.split(":") as [string, string];
  await sim.connect(sessionId, { credentials: null });
  while (!sim.currentQr(sessionId)) await Bun.sleep(2);
  sim.scan(sessionId, phone);
}
process.stdout.write(JSON.stringify({ listening: server.url, port: server.port }) + "\n");
