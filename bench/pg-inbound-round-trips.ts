// PostgreSQL only: statements, round trips and transactions per inbound message stored through
// the sim route (contact, conversation, message, webhook outbox row, live events), counted by the
// store (`db.counts`), in process on a fresh database, in bursts of 1, 8, 32 and 64 at once. Not a
// timing: run it before and after a change to the inbound path. The store counts a statement
// sent without waiting for its answer (a group's contact touch, conversation and message row) as
// a round trip too: "statements" is the figure to compare; how many a message waits for is in
// docs/inbound-pipeline.md.
//   PARLEY_BENCH_DATABASE_URL=postgres://… bun bench/pg-inbound-round-trips.ts
import { benchRuntime } from "./lib/runtime.ts";
import type { StoreCounts } from "../src/db/store.ts";

if (!process.env.PARLEY_BENCH_DATABASE_URL) throw new Error("PARLEY_BENCH_DATABASE_URL: a PostgreSQL server the script may create a database on");
process.env.PARLEY_BENCH_ENGINE = "postgres";
const N = Number(process.env.ROUND_TRIPS_N ?? 640);
const { rt, s } = await benchRuntime({ webhookAllowHttp: true, webhookAllowPrivate: true }, 1);
const { deps, app } = rt;
// started as a server is (the event listener is what lets the read cache keep the guard's and
// the sim route's rows): without it every request would read them, which a server does not
await rt.start();
const db = deps.db;
const counts = () => db.counts!;
const per = (a: StoreCounts, b: StoreCounts, n: number) =>
  `${((b.statements - a.statements) / n).toFixed(2)} statements, ${((b.roundTrips - a.roundTrips) / n).toFixed(2)} round trips, ${((b.transactions - a.transactions) / n).toFixed(3)} transactions`;
const headers = { "content-type": "application/json", authorization: `Bearer ${s.token}` };
const hook = await app.handle(
  new Request("http://localhost/api/webhooks", { method: "POST", headers, body: JSON.stringify({ name: "bench", url: "http://127.0.0.1:9/hook", events: ["message_received"] }) }),
);
if (hook.status !== 201 && hook.status !== 200) throw new Error(`webhook: ${hook.status} ${await hook.text()}`);
await deps.jobs.stop(5000);
await rt.services.webhooks.stop(5000); // the webhook deliveries' own statements are not the pipeline's

let i = 0;
const inbound = async (senders: number) => {
  const k = i++;
  const r = await app.handle(
    new Request(`http://localhost/api/sim/sessions/${s.sessionIds[0]}/inbound`, {
      method: "POST",
      headers,
      body: JSON.stringify({ from: `9198${10_000_000 + (k % senders)}`, type: "text", text: `round trips ${k}` }),
    }),
  );
  if (r.status !== 200 && r.status !== 201) throw new Error(`inbound: ${r.status} ${await r.text()}`);
};

for (let w = 0; w < 50; w++) await inbound(1); // warm-up: prepared statements
for (const senders of [1, 500]) {
  for (const burst of [1, 8, 32, 64]) {
    const a = counts();
    for (let n = 0; n < N; n += burst) await Promise.all(Array.from({ length: burst }, () => inbound(senders)));
    console.log(`inbound message, ${burst} at once, ${senders === 1 ? "one sender" : `${senders} senders`} (through the app): ${per(a, counts(), N)}`);
  }
}
await rt.close();
