// Requests per second of GET /health through the full app, against a bare Bun.serve answering
// the same JSON, measured in the same run on loopback.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/log.ts";
import { SimDriver } from "../src/network/sim/driver.ts";
import { createRuntime } from "../src/runtime.ts";

const N = 5000;
const CONCURRENCY = 32;

async function hammer(url: string): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < N) await (await fetch(url)).arrayBuffer();
    }),
  );
  return N / ((performance.now() - start) / 1000);
}

const bare = Bun.serve({ port: 0, fetch: () => Response.json({ success: true, data: { status: "ok" } }) });
const config = loadConfig({ dataDir: mkdtempSync(join(tmpdir(), "parley-bench-")), network: "sim", logLevel: "silent", port: 0 });
const rt = await createRuntime(config, silentLogger, { network: new SimDriver() });
rt.app.listen({ port: 0, hostname: "127.0.0.1" });

await hammer(`http://127.0.0.1:${bare.port}/`); // warm-up
const baseline = await hammer(`http://127.0.0.1:${bare.port}/`);
const parley = await hammer(`http://127.0.0.1:${rt.app.server!.port}/health`);
console.log(`bare Bun.serve: ${baseline.toFixed(0)} req/s`);
console.log(`parley /health: ${parley.toFixed(0)} req/s`);
console.log(`ratio parley/bare: ${(parley / baseline).toFixed(2)}`);
console.log(`rss: ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB`);
bare.stop(true);
await rt.app.stop();
await rt.close();
