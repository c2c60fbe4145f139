// PostgreSQL only: statements, round trips and transactions per accepted send and per drained
// message, counted by the store (`db.counts`), in process on a fresh database. Not a timing:
// run it before and after a change to the send or drain path.
//   PARLEY_BENCH_DATABASE_URL=postgres://… bun bench/pg-round-trips.ts
import { benchRuntime } from "./lib/runtime.ts";
import type { StoreCounts } from "../src/db/store.ts";
import { readCache } from "../src/db/read-cache.ts";

if (!process.env.PARLEY_BENCH_DATABASE_URL) throw new Error("PARLEY_BENCH_DATABASE_URL: a PostgreSQL server the script may create a database on");
process.env.PARLEY_BENCH_ENGINE = "postgres";
const SESSIONS = 4;
const N = Number(process.env.ROUND_TRIPS_N ?? 640);
const { rt, s } = await benchRuntime({ sendMinGapMs: 0, sendJitterMs: 0, jobPollMs: 20, jobConcurrency: SESSIONS }, SESSIONS);
const { deps, app } = rt;
const db = deps.db;
const counts = () => db.counts!;
const per = (a: StoreCounts, b: StoreCounts, n: number) =>
  `${((b.statements - a.statements) / n).toFixed(2)} statements, ${((b.roundTrips - a.roundTrips) / n).toFixed(2)} round trips, ${((b.transactions - a.transactions) / n).toFixed(3)} transactions`;

let i = 0;
const send = async () => {
  const k = i++;
  const r = await app.handle(
    new Request("http://localhost/api/v1/messages/send", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": s.apiKey },
      body: JSON.stringify({ session_id: s.sessionIds[k % SESSIONS], to: "919812345678", type: "text", body: `round trips ${k}` }),
    }),
  );
  if (r.status !== 202) throw new Error(`send: ${r.status} ${await r.text()}`);
};

// as in `parley serve` once its event listener listens (events/cluster.ts): the request guard
// keeps the API key's row in its read cache (src/db/read-cache.ts); this process is the only writer
readCache(db).setLive(true);
await deps.jobs.stop(5000); // accepts only, then the drain on its own
for (let w = 0; w < 50; w++) await send(); // warm-up: the guard's blocks, prepared statements
for (const burst of [1, 8, 32, 64]) {
  const a = counts();
  for (let n = 0; n < N; n += burst) await Promise.all(Array.from({ length: burst }, send));
  console.log(`accepted send, ${burst} at once (API key, through the app): ${per(a, counts(), N)}`);
}
const queued = db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages WHERE status = 'queued'");
const total = (await queued.get())!.n;
const a = counts();
deps.jobs.start();
while ((await queued.get())!.n > 0) await Bun.sleep(20);
const b = counts();
await rt.close();
console.log(`drained message, pacing off, ${SESSIONS} sessions (${total} messages; the job worker's polls and the count's own polls included): ${per(a, b, total)}`);
