// How far can webhook deliveries/s go with no SQLite work on the main thread at all?
// `bun bench/lib/webhooks-ceiling.ts`
// The `webhooks` bench's setting (8 webhooks x 2 in flight, its in-process receiver, its bare
// fetch loop), but every delivery is claimed before the clock starts and the dispatcher's running
// instance is patched so that a finished attempt records nothing and its slot is refilled from
// memory: what is left is Parley's HTTP half (signing, the ten delivery headers, the guarded fetch, the
// outcome) and the dispatcher's JavaScript. The ceiling for any move of the claims, the recording
// and the commits off the main thread (a worker, another process) that costs nothing itself.
import { sqliteOf } from "../../src/db/sqlite.ts";
import { createWebhook } from "../../src/modules/webhooks/service.ts";
import type { ClaimedDelivery } from "../../src/modules/webhooks/store.ts";
import { bareFetchLoop, localReceiver } from "./local-receiver.ts";
import { median } from "./report.ts";
import { benchRuntime } from "./runtime.ts";

const WEBHOOKS = 8;
const EVENTS = 500;
const PER_WEBHOOK = 2;
const CONCURRENCY = WEBHOOKS * PER_WEBHOOK;
const ROUNDS = 5;

const receiver = localReceiver();
const { rt, s: seeded } = await benchRuntime({ webhookAllowHttp: true, webhookAllowPrivate: true, webhookConcurrency: CONCURRENCY, webhookConcurrencyPerWebhook: PER_WEBHOOK, jobPollMs: 50 });
const { deps } = rt;
// the claims and the payload are read on the SQLite connection directly, while nothing else runs
const sqlite = sqliteOf(deps.db)!;
const wsId = seeded.workspaceId;
for (let i = 0; i < WEBHOOKS; i++) await createWebhook(deps, wsId, null, { name: `bench-${i}`, url: `${receiver.base}/hook/${i}`, events: ["message_received"] });
const data = { sessionId: Bun.randomUUIDv7(), from: "919800000001", messageId: "x", text: "Hello there, this is a typical inbound message.", content: "", mediaUrl: null };
const total = EVENTS * WEBHOOKS;

/** The queue in memory: each webhook's deliveries, claimed (leased, attempt counted) in one statement. */
const queue = new Map<string, ClaimedDelivery[]>();
function claimAll(): void {
  queue.clear();
  const rows = sqlite
    .query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = ?1, updated_at = ?2 WHERE status = 'pending' AND lease_until IS NULL
       RETURNING rowid AS rowid, id, workspace_id AS workspaceId, webhook_id AS webhookId, event_type AS eventType, payload, is_test AS isTest, status, attempts,
         (SELECT url FROM webhooks w WHERE w.id = webhook_id) AS url, (SELECT secret_enc FROM webhooks w WHERE w.id = webhook_id) AS secretEnc`,
    )
    .all(Date.now() + 600_000, Date.now()) as ClaimedDelivery[];
  for (const d of rows.sort((a, b) => a.rowid - b.rowid)) {
    d.isTest = !!d.isTest;
    const q = queue.get(d.webhookId) ?? [];
    q.push(d);
    queue.set(d.webhookId, q);
  }
}

// the running dispatcher, patched: no claim statement, no recording, no commit
const dispatcher = rt.services.webhooks as unknown as {
  recordAndRefill: (attempts: unknown[], webhookIds: string[]) => ClaimedDelivery[];
  fill: () => number;
  launch: (d: ClaimedDelivery) => void;
};
dispatcher.recordAndRefill = (_attempts, ids) => ids.flatMap((id) => queue.get(id)?.splice(0, 1) ?? []);
dispatcher.fill = () => {
  let n = 0;
  for (const q of queue.values()) for (const d of q.splice(0, PER_WEBHOOK)) (dispatcher.launch(d), n++);
  return n;
};

async function ceilingRound(): Promise<number> {
  for (let i = 0; i < EVENTS; i++) await deps.db.tx(() => deps.bus.publish(wsId, "message_received", { ...data, messageId: `m${i}` }));
  claimAll();
  const before = receiver.received();
  const t0 = performance.now();
  rt.services.webhooks.start();
  while (receiver.received() - before < total) await Bun.sleep(1);
  const rate = total / ((performance.now() - t0) / 1000);
  await rt.services.webhooks.stop(1000);
  return rate;
}

let body = "";
const bare = () => bareFetchLoop(receiver.base, body, total, CONCURRENCY, WEBHOOKS);

await ceilingRound(); // warm-up
body = (sqlite.query("SELECT payload FROM webhook_deliveries LIMIT 1").get() as { payload: string }).payload;
await bare();
const ratios: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const b = await bare();
  const c = await ceilingRound();
  ratios.push(c / b);
  console.log(`round ${i + 1}: bare ${b.toFixed(0)}/s, no SQLite on the main thread ${c.toFixed(0)}/s, ratio ${(c / b).toFixed(3)}`);
}
console.log(`median ratio ${median(ratios).toFixed(3)} (the goal: 0.45)`);
receiver.stop();
await rt.close();
