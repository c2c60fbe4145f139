import { benchRuntime } from "./lib/runtime.ts";
process.env.PARLEY_BENCH_ENGINE = "postgres";
const SESSIONS = 1;
const { rt, s } = await benchRuntime({}, SESSIONS);
const { deps, app } = rt;
await deps.jobs.stop(5000);
let i = 0;
const send = async () => {
  const k = i++;
  const r = await app.handle(new Request("http://localhost/api/v1/messages/send", { method: "POST", headers: { "content-type": "application/json", "x-api-key": s.apiKey }, body: JSON.stringify({ session_id: s.sessionIds[0], to: "919812345678", type: "text", body: "Hello from the benchmark" }) }));
  if (r.status !== 202) throw new Error(`send: ${r.status}`);
};
for (let w = 0; w < 200; w++) await send();
const t0 = performance.now(); const c0 = process.cpuUsage();
const N = Number(process.env.N ?? 6400);
// 64 clients in a closed loop, as wrk does
await Promise.all(Array.from({ length: 64 }, async () => { while (i < N + 200) await send(); }));
const c = process.cpuUsage(c0);
console.log(`${N} sends in ${(performance.now() - t0).toFixed(0)} ms: ${(N / ((performance.now() - t0) / 1000)).toFixed(0)}/s, CPU ${((c.user + c.system) / N).toFixed(1)} µs/send`, db());
function db() { return deps.db.counts; }
await rt.close();
