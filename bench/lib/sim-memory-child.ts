// One process driving the in-process sim network through N sends (clientMessageId, a short text),
// printing its RSS (after a full GC) at each checkpoint as a JSON line.
const { SimDriver } = await import(process.env.SIM_DRIVER ?? "../../src/network/sim/driver.ts");
import { benchDir } from "./tmp.ts";

const checkpoints = process.argv.slice(2).map(Number);
const sim = new SimDriver({ dataDir: benchDir("parley-simmem-"), latencyMs: 0 });
await sim.connect("s1", { credentials: null });
await Bun.sleep(10);
sim.scan("s1", "919800000001");
const BATCH = 200;
let sent = 0;
const start = performance.now();
for (const target of checkpoints) {
  while (sent < target) {
    const n = Math.min(BATCH, target - sent);
    await Promise.all(Array.from({ length: n }, (_, i) => sim.send("s1", { to: "919800000002", type: "text", text: `message number ${sent + i} of the bench`, clientMessageId: `c${sent + i}` })));
    sent += n;
  }
  Bun.gc(true);
  console.log(JSON.stringify({ sent, rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed, seconds: (performance.now() - start) / 1000 }));
}
await sim.shutdown();
