// What one webhook's backlog costs everyone else: the dispatcher looks for work (claims until
// none is left, then asks when the next delivery is due) on every wake-up, i.e. for every event
// committed. Here one webhook is at its in-flight cap with BACKLOG due deliveries behind it (a
// slow receiver), and a look finds nothing else to do; the baseline is the same look on the same
// database without that backlog (the webhook at its cap with only its two deliveries in flight).
import { sqliteOf } from "../src/db/sqlite.ts";
import { createWebhook } from "../src/modules/webhooks/service.ts";
import { dueWindow } from "../src/modules/webhooks/store.ts";
import { median, report } from "./lib/report.ts";
import { benchRuntime } from "./lib/runtime.ts";
import { interleave, isRoundChild } from "./lib/interleave.ts";

// the current and previous releases' copies of this file, round by round (see interleave.ts)
if (!isRoundChild()) {
  interleave("backlog");
  process.exit(process.exitCode ?? 0);
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BACKLOG = 100_000;
const LOOKS = 200;
const LEASE = 60_000;

const { rt, s: seeded } = await benchRuntime({ webhookAllowHttp: true, webhookAllowPrivate: true });
const { deps } = rt;
const now = Date.now();
const wsId = seeded.workspaceId;
for (const name of ["slow", "healthy"]) await createWebhook(deps, wsId, null, { name, url: `http://127.0.0.1:9/${name}`, events: ["message_received"] });
// the backlog is written on the SQLite connection directly (nothing else runs meanwhile)
const sqlite = sqliteOf(deps.db)!;
const slow = (sqlite.query("SELECT id FROM webhooks WHERE name = 'slow'").get() as { id: string }).id;

const insert = sqlite.prepare(
  `INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, status, attempts, next_attempt_at, lease_until, created_at, updated_at)
   VALUES (?, ?, ?, ?, 'message_received', '{"event":"message_received"}', 'pending', ?, ?, ?, ?, ?)`,
);
/** The slow webhook's two deliveries in flight, and `n` due ones behind them (each its own millisecond, or all the same: a webhook switched back on). */
function fill(n: number, sameTime = false): void {
  sqlite.exec("DELETE FROM webhook_deliveries");
  sqlite.transaction(() => {
    for (let i = 0; i < 2; i++) insert.run(Bun.randomUUIDv7(), wsId, slow, Bun.randomUUIDv7(), 1, now - BACKLOG - 10 + i, now + LEASE, now, now);
    for (let i = 0; i < n; i++) insert.run(Bun.randomUUIDv7(), wsId, slow, Bun.randomUUIDv7(), 0, sameTime ? now - 1 : now - BACKLOG + i, null, now, now);
  })();
}

const store = deps.deliveries;
const window = dueWindow(deps.config.webhookConcurrency);
/** µs per look (a claim that finds nothing, then the next due time), with the slow webhook at its cap. */
async function looks(): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < LOOKS; i++) {
    if (await store.claimDue(now, LEASE, [slow], await store.dueBound(now, window))) throw new Error("claimed a delivery of a webhook at its cap");
    if ((await store.nextDue([slow], now, window)) !== null) throw new Error("a next due time of a webhook at its cap");
  }
  return ((performance.now() - t0) * 1000) / LOOKS;
}

const rounds: { parley: number; baseline: number }[] = [];
const tied: { parley: number; baseline: number }[] = [];
for (let i = 0; i < ROUNDS; i++) {
  fill(0);
  const baseline = await looks();
  fill(BACKLOG);
  rounds.push({ baseline, parley: await looks() });
  fill(BACKLOG, true);
  tied.push({ baseline, parley: await looks() });
}
await rt.close();
const row = (scenario: string, r: typeof rounds) => ({
  scenario,
  parley: median(r.map((x) => x.parley)),
  baseline: median(r.map((x) => x.baseline)),
  ratio: median(r.map((x) => x.baseline / x.parley)),
  unit: "µs",
  baselineWhat: "the same look without the backlog",
  lowerIsBetter: true,
  rounds: r,
  notes: `not one of the issue's goals: what a slow receiver's backlog costs every wake-up of the dispatcher (the due order read up to its ${window}th entry, then webhook by webhook)`,
});
report("backlog", `Webhook backlog: one look for work while a webhook at its cap has ${BACKLOG.toLocaleString("en")} due deliveries`, [
  row("dispatcher look for work (claim + next due time)", rounds),
  row("the same, the backlog all due at one millisecond (a webhook switched back on)", tied),
]);
