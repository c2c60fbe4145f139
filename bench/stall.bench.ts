// No stalls: a workspace of 100,000 contacts (seeded through the store, not the API), and each
// heavy operation run through the real routes while a worker thread asks GET /health every ~5 ms
// on its own event loop. The figure is the worst /health latency during the operation (goal:
// 50 ms at most), and its ratio to the worst of an idle server probed the same way.
// `PARLEY_BENCH_DATABASE_URL=postgres://...` runs it on PostgreSQL (a fresh database there).
// `bun bench/stall.bench.ts [contacts]`
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { insertStoredContact } from "../src/modules/contacts/store.ts";
import { SimDriver } from "../src/network/sim/driver.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";
import { report, type Row } from "./lib/report.ts";
import { seed } from "./lib/seed.ts";
import { benchDir } from "./lib/tmp.ts";

const CONTACTS = Number(process.argv[2] ?? 100_000);
const IMPORT_ROWS = Math.min(20_000, CONTACTS);
const GOAL_MS = 50;
const databaseUrl = process.env.PARLEY_BENCH_DATABASE_URL;
const dataDir = benchDir("parley-stall-");
const config = loadConfig({
  dataDir,
  network: "sim",
  logLevel: "silent",
  rateLimitPerMinute: 1_000_000,
  ...(databaseUrl ? { databaseUrl } : {}),
});

// errors only (a failed request says why on stderr); nothing else is logged
const logger = createLogger({ level: "error", format: "json" });
let sim = new SimDriver({ latencyMs: 1 });
let rt: Runtime = await createRuntime(config, logger, { network: sim });
const { db, clock } = rt.deps;
const now = clock.now().getTime();
// the workspace (unlimited plan), its owner and token; its one session is linked by `listen`
const { workspaceId: wsId, token } = await seed(rt, sim, 0);
const sessionId = Bun.randomUUIDv7();
await db
  .prepare("INSERT INTO chat_sessions (id, workspace_id, name, status, phone_number, connected_at, created_at, updated_at) VALUES (?, ?, 'bench', 'connected', '919800001000', ?, ?, ?)")
  .run(sessionId, wsId, now, now, now);

// ---- the workspace: CONTACTS contacts, tagged, a few attributes, every tenth opted out ----
const seedStarted = performance.now();
for (let from = 0; from < CONTACTS; from += 5000) {
  await db.tx(async () => {
    for (let i = from; i < Math.min(CONTACTS, from + 5000); i++) {
      await insertStoredContact(db, wsId, {
        id: Bun.randomUUIDv7(),
        phone: `91${String(7_000_000_000 + i)}`,
        name: `Person ${i}`,
        pushName: null,
        tags: i % 2 ? ["all", "odd"] : ["all", "even"],
        attributes: { city: i % 3 ? "Pune" : "Delhi" },
        optedOut: i % 10 === 9,
        lastInboundAt: i % 4 ? null : now,
        at: now,
      });
    }
  });
}
console.log(`seeded ${CONTACTS} contacts in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (${db.engine})`);

async function listen(): Promise<string> {
  rt.app.listen({ port: 0, hostname: "127.0.0.1" });
  await sim.connect(sessionId, { credentials: null });
  for (let t = 0; t < 500 && !sim.currentQr(sessionId); t++) await Bun.sleep(2);
  sim.scan(sessionId, "919800001000");
  for (let t = 0; t < 500 && sim.stateOf(sessionId) !== "connected"; t++) await Bun.sleep(2);
  return `http://127.0.0.1:${rt.app.server!.port}`;
}
let base = await listen();
await rt.start();

const probe = new Worker(new URL("./lib/health-probe-worker.ts", import.meta.url).href);
const fromProbe = () => new Promise<{ max: number; p50: number; n: number }>((r) => probe.addEventListener("message", (e) => r(e.data), { once: true }));
async function mark() {
  const answer = fromProbe();
  probe.postMessage({ mark: true });
  return answer;
}
let started = fromProbe();
probe.postMessage({ url: `${base}/health` });
await started;

async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { success: boolean; data: T; message?: string };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** `STALL_ONLY=export,cancel` runs only the operations whose names hold one of these words. */
const only = process.env.STALL_ONLY?.split(",").filter(Boolean);

/** The worst and median /health latency while `op` runs, and how long it ran. */
async function during(name: string, op: () => Promise<unknown>) {
  if (only && !only.some((w) => name.includes(w))) return { name, ms: NaN, max: NaN, p50: NaN, n: 0 };
  await Bun.sleep(50);
  await mark();
  const t0 = performance.now();
  await op();
  const ms = performance.now() - t0;
  await Bun.sleep(20);
  const p = await mark();
  console.log(`${name}: ${ms.toFixed(0)} ms; /health worst ${p.max.toFixed(1)} ms, median ${p.p50.toFixed(1)} ms over ${p.n} probes`);
  return { name, ms, ...p };
}

// idle: the probe alone
await Bun.sleep(500);
await mark();
await Bun.sleep(2000);
const idle = await mark();
console.log(`idle: /health worst ${idle.max.toFixed(1)} ms, median ${idle.p50.toFixed(1)} ms over ${idle.n} probes`);

const results: Awaited<ReturnType<typeof during>>[] = [];
const filter = { tagsAny: ["all"] };
const campaign = (name: string) =>
  api<{ id: string }>("POST", "/api/v1/campaigns", { name, sessionIds: [sessionId], message: { type: "text", body: "Hello {{name|friend}}" }, audience: { filter } });

let c1 = await campaign("stall-1");
// the start answers with the first batch; the campaign's run job writes the rest: measured until the audience is complete
results.push(
  await during(`campaign start (${CONTACTS.toLocaleString("en")} contacts, filter audience), until every recipient is written`, async () => {
    const t0 = performance.now();
    const answer = await api<{ stats: { total: number } }>("POST", `/api/v1/campaigns/${c1.id}/start`);
    console.log(`campaign start: answered in ${(performance.now() - t0).toFixed(0)} ms with ${answer.stats.total} recipients`);
    const done = db.prepare<{ at: number | null }>("SELECT materialized_at AS at FROM campaigns WHERE id = ?");
    while (!(await done.get(c1.id))?.at) await Bun.sleep(50);
  }),
);
results.push(await during("campaign recipients page (with its total)", () => api("GET", `/api/v1/campaigns/${c1.id}/recipients?limit=50`)));
// the cancel answers within 2 s; the run job skips what is left: measured until nobody is pending
results.push(
  await during("campaign cancel (every pending recipient skipped)", async () => {
    const t0 = performance.now();
    await api("POST", `/api/v1/campaigns/${c1.id}/cancel`);
    console.log(`campaign cancel: answered in ${(performance.now() - t0).toFixed(0)} ms`);
    const pending = db.prepare<{ n: number }>("SELECT pending AS n FROM campaigns WHERE id = ?");
    while (Number((await pending.get(c1.id))?.n ?? 0) > 0) await Bun.sleep(50);
  }),
);
const segment = await api<{ id: string }>("POST", "/api/v1/segments", { name: "odd in Pune", filter: { tagsAll: ["odd"], attributes: { city: "Pune" } } });
results.push(await during("segment count (GET one segment)", () => api("GET", `/api/v1/segments/${segment.id}`)));
results.push(await during("segment preview (tag filter)", () => api("POST", "/api/v1/segments/preview", { filter: { tagsAny: ["even"] } })));
results.push(await during("segments list (each with its count)", () => api("GET", "/api/v1/segments?limit=20")));
results.push(await during("contacts list page (with its total)", () => api("GET", "/api/v1/contacts?limit=50")));
results.push(
  await during(`CSV export (${CONTACTS.toLocaleString("en")} contacts)`, async () => {
    const res = await fetch(`${base}/api/v1/contacts/export`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
  }),
);
const lines = ["phone,name,tags,city"];
for (let i = 0; i < IMPORT_ROWS; i++) lines.push(`91${String(6_000_000_000 + i)},Imported ${i},imported;all,Mumbai`);
const csv = lines.join("\n") + "\n";
results.push(
  await during(`CSV import (${IMPORT_ROWS.toLocaleString("en")} new rows)`, async () => {
    const form = new FormData();
    form.set("file", new File([csv], "contacts.csv", { type: "text/csv" }));
    const res = await fetch(`${base}/api/v1/contacts/import`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
    const answer = (await res.json()) as { data: { id: string } };
    if (!res.ok) throw new Error(`import: ${res.status} ${JSON.stringify(answer)}`);
    const imp = answer.data;
    for (;;) {
      const s = await api<{ status: string }>("GET", `/api/v1/contacts/imports/${imp.id}`);
      if (s.status === "completed" || s.status === "failed") break;
      await Bun.sleep(50);
    }
  }),
);
for (const job of rt.services.periodic) results.push(await during(`periodic job ${job.name}`, async () => void (await job.run())));
if (db.engine === "sqlite") {
  results.push(
    await during("parley backup (another process, the server running)", async () => {
      const p = Bun.spawn([process.execPath, join(import.meta.dir, "../src/main.ts"), "backup", join(dataDir, "..", `stall-backup-${process.pid}.tar.gz`), "--data-dir", dataDir], { stdout: "ignore", stderr: "inherit" });
      if ((await p.exited) !== 0) throw new Error("backup failed");
    }),
  );
}
// a second campaign left running over the restart: start-up resumes it
const c2 = await campaign("stall-2");
await api("POST", `/api/v1/campaigns/${c2.id}/start`);

// ---- start-up: the runtime closed and made again on the same data, probed from listening on ----
probe.postMessage({ stop: true });
probe.terminate();
await rt.close();
sim = new SimDriver({ latencyMs: 1 });
rt = await createRuntime(config, logger, { network: sim });
base = await listen();
const probe2 = new Worker(new URL("./lib/health-probe-worker.ts", import.meta.url).href);
started = new Promise((r) => probe2.addEventListener("message", (e) => r(e.data), { once: true }));
probe2.postMessage({ url: `${base}/health` });
await started;
await Bun.sleep(50);
const mark2 = () => new Promise<{ max: number; p50: number; n: number }>((r) => {
  probe2.addEventListener("message", (e) => r(e.data), { once: true });
  probe2.postMessage({ mark: true });
});
await mark2();
const t0 = performance.now();
await rt.start();
await Bun.sleep(1500); // the periodic jobs are scheduled a second after start
const startup = await mark2();
results.push({ name: "start-up (services start, sessions restored, first periodic runs)", ms: performance.now() - t0, ...startup });
console.log(`start-up: /health worst ${startup.max.toFixed(1)} ms over ${startup.n} probes`);
probe2.postMessage({ stop: true });
probe2.terminate();
await rt.close();

const rows: Row[] = results.filter((r) => r.n > 0).map((r) => ({
  scenario: `${r.name} [${db.engine}], ran ${r.ms.toFixed(0)} ms`,
  parley: r.max,
  baseline: idle.max,
  ratio: r.max / idle.max,
  unit: "ms worst /health",
  baselineWhat: "idle server, same probe",
  goal: `≤ ${GOAL_MS} ms`,
  met: r.max <= GOAL_MS,
  lowerIsBetter: true,
}));
report(db.engine === "sqlite" ? "stall" : "stall-postgres", `No stalls: worst /health latency during heavy operations (${CONTACTS.toLocaleString("en")} contacts)`, rows);
process.exit(0);
