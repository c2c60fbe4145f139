// Webhook deliveries per second (outbox -> dispatcher -> signed POST -> recorded) against a
// bare fetch loop POSTing the same body to the same local receiver with the same
// concurrency, measured in the same run.
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/log.ts";
import { createWebhook } from "../src/modules/webhooks/service.ts";
import { SimDriver } from "../src/network/sim/driver.ts";
import { createRuntime } from "../src/runtime.ts";
import { engineDatabase } from "./lib/engine.ts";
import { median, report } from "./lib/report.ts";
import { bareFetchLoop, localReceiver } from "./lib/local-receiver.ts";
import { benchDir } from "./lib/tmp.ts";
import { interleave, isRoundChild } from "./lib/interleave.ts";

// the current and previous releases' copies of this file, round by round (see interleave.ts)
if (!isRoundChild()) {
  interleave("webhooks");
  process.exit(process.exitCode ?? 0);
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const WEBHOOKS = 8;
const EVENTS = 500; // x WEBHOOKS deliveries
const PER_WEBHOOK = 2;
const CONCURRENCY = WEBHOOKS * PER_WEBHOOK;

const receiver = localReceiver();
const { base } = receiver;

const databaseUrl = await engineDatabase();
const config = loadConfig({
  dataDir: benchDir("parley-bench-"),
  ...(databaseUrl ? { databaseUrl } : {}),
  network: "sim",
  logLevel: "silent",
  webhookAllowHttp: true,
  webhookAllowPrivate: true,
  webhookConcurrency: CONCURRENCY,
  webhookConcurrencyPerWebhook: PER_WEBHOOK,
  jobPollMs: 50,
});
const rt = await createRuntime(config, silentLogger, { network: new SimDriver() });
const { deps } = rt;
const now = Date.now();
const wsId = Bun.randomUUIDv7();
await deps.db.prepare(`INSERT INTO workspaces (id, name, plan_id, subscription_status, created_at, updated_at) VALUES (?, 'Bench', 'pro', 'active', ?, ?)`).run(wsId, now, now);
await deps.db.prepare(`INSERT INTO chat_sessions (id, workspace_id, name, status, created_at, updated_at) VALUES (?, ?, 'bench', 'connected', ?, ?)`).run(Bun.randomUUIDv7(), wsId, now, now);
for (let i = 0; i < WEBHOOKS; i++) await createWebhook(deps, wsId, null, { name: `bench-${i}`, url: `${base}/hook/${i}`, events: ["message_received"] });

const data = { sessionId: Bun.randomUUIDv7(), from: "919800000001", messageId: "x", text: "Hello there, this is a typical inbound message.", content: "", mediaUrl: null };

const total = EVENTS * WEBHOOKS;
const pending = async () => (await deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'success'").get())!.n;
let publishRate = 0;

/** Publishes EVENTS events (each in its own transaction, outbox rows with it), then times the dispatcher. */
async function parleyRound(): Promise<number> {
  const before = receiver.received();
  let t0 = performance.now();
  for (let i = 0; i < EVENTS; i++) await deps.db.tx(() => deps.bus.publish(wsId, "message_received", { ...data, messageId: `m${i}` }));
  publishRate = EVENTS / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  rt.services.webhooks.start();
  while (receiver.received() - before < total) await Bun.sleep(2);
  while ((await pending()) > 0) await Bun.sleep(2); // the last outcomes are being recorded
  const rate = total / ((performance.now() - t0) / 1000);
  await rt.services.webhooks.stop(1000);
  return rate;
}

// baseline: the same number of POSTs of the same body, same concurrency, plain fetch
let body = "";
const bare = () => bareFetchLoop(base, body, total, CONCURRENCY, WEBHOOKS);
await parleyRound(); // warm-up
body = (await deps.db.prepare<{ payload: string }>("SELECT payload FROM webhook_deliveries LIMIT 1").get())!.payload;
await bare();
const rounds: { parley: number; baseline: number }[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push({ baseline: await bare(), parley: await parleyRound() });
const parleyRate = median(rounds.map((r) => r.parley));
const bareRate = median(rounds.map((r) => r.baseline));

console.log(`publish (event + ${WEBHOOKS} outbox rows per transaction): ${publishRate.toFixed(0)} events/s`);
console.log(`bare fetch loop: ${bareRate.toFixed(0)} POST/s (concurrency ${CONCURRENCY})`);
console.log(`parley webhooks: ${parleyRate.toFixed(0)} deliveries/s (${WEBHOOKS} webhooks x ${PER_WEBHOOK} in flight, signed, recorded)`);
const ratio = median(rounds.map((r) => r.parley / r.baseline));
console.log(`received ${receiver.received()} requests`);
receiver.stop();
await rt.close();
report("webhooks", `Webhook deliveries: ${WEBHOOKS} webhooks x ${PER_WEBHOOK} in flight, signed and recorded, local receiver (in process)`, [
  {
    scenario: "webhook deliveries/s",
    parley: parleyRate,
    baseline: bareRate,
    ratio,
    unit: "deliveries/s",
    baselineWhat: `bare fetch loop POSTing the same body, concurrency ${CONCURRENCY}`,
    goal: "≥ 0.45 of bare",
    met: ratio >= 0.45,
    rounds,
    notes: `publish (event + ${WEBHOOKS} outbox rows per transaction): ${publishRate.toFixed(0)} events/s`,
  },
]);
