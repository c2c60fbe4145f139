// The per-request cost of /metrics' request timing: GET /health through the full app with
// metricsToken set (one histogram observe per request) against the same app without it, and
// both against a bare Bun.serve, alternating in the same run on loopback.
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/log.ts";
import { SimDriver } from "../src/network/sim/driver.ts";
import { createRuntime } from "../src/runtime.ts";
import { benchDir } from "./lib/tmp.ts";

const N = 5000;
const CONCURRENCY = 32;
const ROUNDS = 3;

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

async function app(metricsToken?: string) {
  const config = loadConfig({ dataDir: benchDir("parley-bench-"), network: "sim", logLevel: "silent", port: 0, metricsToken });
  const rt = await createRuntime(config, silentLogger, { network: new SimDriver() });
  rt.app.listen({ port: 0, hostname: "127.0.0.1" });
  return { rt, url: `http://127.0.0.1:${rt.app.server!.port}/health` };
}

const bare = Bun.serve({ port: 0, fetch: () => Response.json({ success: true, data: { status: "ok" } }) });
const off = await app();
const on = await app("bench-metrics-token-0123456789");
await hammer(off.url); // warm-up
await hammer(on.url);
const sum = { bare: 0, off: 0, on: 0 };
for (let i = 0; i < ROUNDS; i++) {
  sum.bare += await hammer(`http://127.0.0.1:${bare.port}/`);
  sum.off += await hammer(off.url);
  sum.on += await hammer(on.url);
}
const avg = (n: number) => n / ROUNDS;
console.log(`bare Bun.serve: ${avg(sum.bare).toFixed(0)} req/s`);
console.log(`parley /health, metrics off: ${avg(sum.off).toFixed(0)} req/s (ratio to bare ${(sum.off / sum.bare).toFixed(2)})`);
console.log(`parley /health, metrics on: ${avg(sum.on).toFixed(0)} req/s (ratio to bare ${(sum.on / sum.bare).toFixed(2)})`);
console.log(`ratio metrics on/off: ${(sum.on / sum.off).toFixed(3)}`);
bare.stop(true);
for (const a of [off, on]) {
  await a.rt.app.stop();
  await a.rt.close();
}
