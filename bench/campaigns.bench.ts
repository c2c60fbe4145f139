// Campaigns: (1) materialising 100,000 recipients from a filter audience (time and peak RSS),
// against a bare prepared INSERT loop writing the same number of rows in one transaction;
// (2) campaign throughput on the sim network with pacing off, against the plain send path
// (acceptSend per message, the same sender), measured in the same run.
import { loadConfig } from "../src/config.ts";
import { sqliteOf } from "../src/db/sqlite.ts";
import { silentLogger } from "../src/log.ts";
import { materialize } from "../src/modules/campaigns/audience.ts";
import { createCampaign } from "../src/modules/campaigns/service.ts";
import { startCampaign } from "../src/modules/campaigns/transitions.ts";
import { acceptSend } from "../src/modules/messages/service.ts";
import { SimDriver } from "../src/network/sim/driver.ts";
import { createRuntime } from "../src/runtime.ts";
import { benchDir } from "./lib/tmp.ts";

const AUDIENCE = 100_000;
const SENDS = 2_000;

const config = loadConfig({ dataDir: benchDir("parley-bench-"), network: "sim", logLevel: "silent", sendMinGapMs: 0, sendJitterMs: 0, jobPollMs: 20 });
const sim = new SimDriver({ latencyMs: 1 });
const rt = await createRuntime(config, silentLogger, { network: sim });
const { deps } = rt;
// seeding and counting go to the SQLite connection directly (the benchmark runs on SQLite)
const sqlite = sqliteOf(deps.db)!;
const now = Date.now();
const wsId = Bun.randomUUIDv7();
sqlite.query("INSERT INTO workspaces (id, name, plan_id, subscription_status, current_period_end, created_at, updated_at) VALUES (?, 'Bench', 'pro', 'active', ?, ?, ?)").run(wsId, now + 30 * 86_400_000, now, now);
// the quota must not be what stops the throughput runs
sqlite.query("UPDATE plans SET limits = json_set(limits, '$.messagesPerMonth', 10000000) WHERE id = 'pro'").run();

async function liveSession(name: string): Promise<string> {
  const id = Bun.randomUUIDv7();
  sqlite.query("INSERT INTO chat_sessions (id, workspace_id, name, status, phone_number, connected_at, created_at, updated_at) VALUES (?, ?, ?, 'connected', '919800000001', ?, ?, ?)").run(id, wsId, name, now, now, now);
  await sim.connect(id, { credentials: null });
  while (!sim.currentQr(id)) await Bun.sleep(1);
  sim.scan(id, "919800000001");
  return id;
}

// ---- 1. materialising ----
const insContact = sqlite.prepare("INSERT INTO contacts (id, workspace_id, phone, name, tags, created_at, updated_at) VALUES (?, ?, ?, ?, '[\"all\"]', ?, ?)");
const insTag = sqlite.prepare("INSERT INTO contact_tags (workspace_id, tag, contact_id) VALUES (?, 'all', ?)");
sqlite.transaction(() => {
  for (let i = 0; i < AUDIENCE; i++) {
    const id = Bun.randomUUIDv7();
    insContact.run(id, wsId, `91${String(7_000_000_000 + i)}`, `Person ${i}`, now, now);
    insTag.run(wsId, id);
  }
})();
const sessionA = await liveSession("a");

let peak = 0;
const sample = () => (peak = Math.max(peak, process.memoryUsage().rss));
Bun.gc(true);
const rssBefore = process.memoryUsage().rss;
peak = rssBefore;
const sampler = setInterval(sample, 5);
const draft = await createCampaign(deps, wsId, null, {
  name: "bench",
  sessionIds: [sessionA],
  message: { type: "text", body: "Hi {{name}}" },
  audience: { filter: { tagsAny: ["all"] } },
  schedule: null,
  pacing: { perMinute: 1, jitterPercent: 0, dailyCapPerSession: 1000, warmup: false, quietHours: null },
});
let t0 = performance.now();
await startCampaign(deps, wsId, draft.id);
// the start answers with the first batch; the run job writes the rest (here, at once)
await materialize(deps, wsId, draft.id);
const materializedTotal = (await deps.db.prepare<{ total: number }>("SELECT total FROM campaigns WHERE id = ?").get(draft.id))!.total;
const materializeMs = performance.now() - t0;
sample();
clearInterval(sampler);
// the campaign must not send: cancel it (the cancel skips 100,000 recipients in one statement)
t0 = performance.now();
const { cancelCampaign } = await import("../src/modules/campaigns/transitions.ts");
await cancelCampaign(deps, wsId, draft.id);
const cancelMs = performance.now() - t0;

sqlite.exec("CREATE TABLE bare_rows (id TEXT PRIMARY KEY, campaign_id TEXT, contact_id TEXT, phone TEXT, status TEXT)");
const bareIns = sqlite.prepare("INSERT INTO bare_rows VALUES (?, ?, ?, ?, 'pending')");
const contacts = sqlite.query("SELECT id, phone FROM contacts WHERE workspace_id = ? ORDER BY id").all(wsId) as { id: string; phone: string }[];
t0 = performance.now();
sqlite.transaction(() => {
  for (const c of contacts) bareIns.run(Bun.randomUUIDv7(), "x", c.id, c.phone);
})();
const bareMs = performance.now() - t0;
console.log(`materialise ${materializedTotal} recipients: ${materializeMs.toFixed(0)} ms; peak RSS +${((peak - rssBefore) / 1048576).toFixed(1)} MiB (from ${(rssBefore / 1048576).toFixed(0)} MiB)`);
console.log(`bare INSERT loop of ${contacts.length} rows (one transaction, no indexes but the key): ${bareMs.toFixed(0)} ms; ratio materialise/bare: ${(materializeMs / bareMs).toFixed(2)}`);
console.log(`cancel (skip ${AUDIENCE} pending recipients): ${cancelMs.toFixed(0)} ms`);

// ---- 2. throughput, pacing off ----
deps.jobs.start();
// through the store: the sender's transactions hold the connection meanwhile
const sentCount = async (sessionId: string) => (await deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages WHERE session_id = ? AND status = 'sent'").get(sessionId))!.n;

const sessionB = await liveSession("b");
t0 = performance.now();
for (let i = 0; i < SENDS; i++) await acceptSend(deps, { workspaceId: wsId, actorId: "bench" }, { session_id: sessionB, to: `91${String(8_000_000_000 + i)}`, type: "text", body: `Hi Person ${i}` });
while ((await sentCount(sessionB)) < SENDS) await Bun.sleep(2);
const plainRate = SENDS / ((performance.now() - t0) / 1000);

const sessionC = await liveSession("c");
const ids = contacts.slice(0, SENDS).map((c) => c.id);
const run = await createCampaign(deps, wsId, null, {
  name: "throughput",
  sessionIds: [sessionC],
  message: { type: "text", body: "Hi {{name}}" },
  audience: { contactIds: ids },
  schedule: null,
  pacing: { perMinute: 600, jitterPercent: 0, dailyCapPerSession: 1_000_000, warmup: false, quietHours: null },
});
// pacing off: a gap of ~0 (the API caps perMinute at 600; the bench measures the engine itself)
await deps.db.prepare("UPDATE campaigns SET pacing = json_set(pacing, '$.perMinute', 60000000) WHERE id = ?").run(run.id);
t0 = performance.now();
await startCampaign(deps, wsId, run.id);
while ((await sentCount(sessionC)) < SENDS) await Bun.sleep(2);
const campaignRate = SENDS / ((performance.now() - t0) / 1000);
console.log(`plain send path: ${plainRate.toFixed(0)} messages/s (${SENDS} queued by acceptSend, one session, sendMinGapMs 0)`);
console.log(`campaign, pacing off: ${campaignRate.toFixed(0)} messages/s (${SENDS} recipients, one session, window of 2 queued)`);
console.log(`ratio campaign/plain: ${(campaignRate / plainRate).toFixed(2)}`);
await rt.close();
