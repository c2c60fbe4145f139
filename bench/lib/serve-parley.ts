// Child process: Parley from source on the sim network, seeded (see seed.ts). Prints one JSON
// line {port, pid, ...seeded} when listening; SIGTERM closes it cleanly.
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { SimDriver } from "../../src/network/sim/driver.ts";
import { createRuntime } from "../../src/runtime.ts";
import { seed } from "./seed.ts";
import { benchDir } from "./tmp.ts";

const opts = JSON.parse(process.argv[2] ?? "{}") as { config?: Record<string, unknown>; sessions?: number; jobs?: boolean };
const config = loadConfig({
  dataDir: benchDir("parley-bench-"),
  network: "sim",
  logLevel: "silent",
  port: 0,
  rateLimitPerMinute: 1_000_000,
  ...opts.config,
});
const sim = new SimDriver();
const rt = await createRuntime(config, silentLogger, { network: sim });
const seeded = await seed(rt, sim, opts.sessions ?? 1);
rt.app.listen({ port: 0, hostname: "127.0.0.1" });
if (opts.jobs) rt.deps.jobs.start();
console.log(JSON.stringify({ port: rt.app.server!.port, pid: process.pid, ...seeded }));
process.on("SIGTERM", async () => {
  await rt.app.stop();
  await rt.close();
  process.exit(0);
});
