// PostgreSQL only: accepted sends in process (API key, through the app, 64 clients in a closed
// loop as the send bench's load does, the sender stopped): sends a second and CPU per accepted
// send, for A/B runs of one change (e.g. `PARLEY_PG_SOCKET=node` against the default) and for
// `bun --cpu-prof`. Alternate the runs: the machine's load moves more than most changes.
//   PARLEY_BENCH_DATABASE_URL=postgres://… bun bench/pg-send-cpu.ts
import { benchRuntime } from "./lib/runtime.ts";

if (!process.env.PARLEY_BENCH_DATABASE_URL) throw new Error("PARLEY_BENCH_DATABASE_URL: a PostgreSQL server the script may create a database on");
process.env.PARLEY_BENCH_ENGINE = "postgres";
const N = Number(process.env.N ?? 6400);
const CLIENTS = 64;
const { rt, s } = await benchRuntime({}, 1);
const { deps, app } = rt;
await deps.jobs.stop(5000);
let i = 0;
const send = async () => {
  i++;
  const r = await app.handle(
    new Request("http://localhost/api/v1/messages/send", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": s.apiKey },
      body: JSON.stringify({ session_id: s.sessionIds[0], to: "919812345678", type: "text", body: "Hello from the benchmark" }),
    }),
  );
  if (r.status !== 202) throw new Error(`send: ${r.status}`);
};
for (let w = 0; w < 200; w++) await send(); // warm-up
const start = i;
const t0 = performance.now();
const c0 = process.cpuUsage();
await Promise.all(Array.from({ length: CLIENTS }, async () => {
  while (i < start + N) await send();
}));
const c = process.cpuUsage(c0);
const ms = performance.now() - t0;
console.log(`${N} sends in ${ms.toFixed(0)} ms: ${(N / (ms / 1000)).toFixed(0)}/s, CPU ${((c.user + c.system) / N).toFixed(1)} µs per accepted send`);
await rt.close();
