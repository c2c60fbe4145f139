// CSV import and export end to end against a real server (child process, real port):
// 200,000 rows with bad rows mixed in (peak RSS of the server reported), the export of the
// same streamed back, and a SIGKILL in the middle of an import followed by a restart. The
// server keeps its rows on the suite's engine (the data dir's SQLite file, or PostgreSQL).
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { expectDataOnEngine, ownerToken, serverData } from "../../helpers/crash.ts";
import { testEngine } from "../../helpers/postgres.ts";
import type { ChildServer } from "../../helpers/process.ts";

const JWT_SECRET = "import-test-secret-".padEnd(48, "k");
const ENV = { PARLEY_JWT_SECRET: JWT_SECRET, PARLEY_JOB_POLL_MS: "100", PARLEY_LOG_LEVEL: "warn", PARLEY_RATE_LIMIT_PER_MINUTE: "1000000" };
const ROWS = 200_000;
// The time each test may take. PostgreSQL applies an imported row in several round trips, where
// SQLite's are function calls: on the loaded test machine it imported 300 to 760 rows/s against SQLite's
// 2,300 to 6,400, so the same rows get a larger budget there (a budget, not an assertion on speed).
const BUDGET_MS = testEngine === "postgres" ? 1_500_000 : 300_000;
const MB = 1024 * 1024;

const data = await serverData("parley-import-");
const dataDir = data.dataDir;
let server: ChildServer = await data.spawn({ env: ENV });
// a second connection to the server's database, as an operator command opens it
const db = data.store();
afterAll(async () => {
  await expectDataOnEngine(data);
  await data.closeStore();
  await server.stop();
  await data.close();
});
// a plan with room for every row
await upsertPlan(db, "bulk", { name: "Bulk", monthlyPaise: 100, annualPaise: 1000, limits: { sessions: 1, messagesPerMonth: 1000, contacts: 1_000_000, apiRequestsPerDay: 1_000_000, webhooks: 1, teamSeats: 5, campaigns: true } }, Date.now());

async function workspace(name: string): Promise<{ id: string; token: string }> {
  const now = Date.now();
  const id = Bun.randomUUIDv7();
  const userId = Bun.randomUUIDv7();
  await db.prepare(`INSERT INTO workspaces (id, name, plan_id, subscription_status, created_at, updated_at) VALUES (?, ?, 'bulk', 'active', ?, ?)`).run(id, name, now, now);
  await db.prepare(
    `INSERT INTO users (id, workspace_id, email, name, password_hash, role, mobile_verified_at, email_verified_at, created_at, updated_at)
     VALUES (?, ?, ?, 'Owner', 'x', 'owner', ?, ?, ?, ?)`,
  ).run(userId, id, `${name}@example.com`, now, now, now, now);
  const token = await ownerToken(JWT_SECRET, id, userId);
  return { id, token };
}

/** A generated CSV file: every 97th row has a bad phone, every 1001st an over-long tag. */
async function generate(rows: number, offset: number): Promise<{ path: string; good: number; badRows: number[] }> {
  const path = join(dataDir, `gen-${offset}.csv`);
  const w = Bun.file(path).writer();
  w.write("phone,name,tags,optedOut,city,plan\n");
  const badRows: number[] = [];
  for (let i = 0; i < rows; i++) {
    const row = i + 2; // the header is row 1
    const phone = i % 97 === 5 ? "12-34" : `9197${String(offset + i).padStart(8, "0")}`;
    const tags = i % 1001 === 7 ? "x".repeat(41) : i % 3 ? "vip|lead" : "lead";
    if (i % 97 === 5 || i % 1001 === 7) badRows.push(row);
    w.write(`${phone},"Person ${i}, Jr",${tags},${i % 10 === 0 ? "yes" : ""},City${i % 50},p${i % 4}\n`);
  }
  await w.end();
  return { path, good: rows - badRows.length, badRows };
}

/** Peak and current resident memory of the server process (Linux /proc). */
function memory(pid: number): { peakMB: number; rssMB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(status.match(new RegExp(`${field}:\\s+(\\d+) kB`))?.[1] ?? 0);
  return { peakMB: Math.round(kb("VmHWM") / 1024), rssMB: Math.round(kb("VmRSS") / 1024) };
}

async function api(token: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
      return { status: res.status, body: await res.json() };
    } catch (err) {
      if (i > 200) throw err;
      await Bun.sleep(50); // the server is restarting
    }
  }
}

async function upload(token: string, path: string): Promise<string> {
  const form = new FormData();
  form.append("file", Bun.file(path), "contacts.csv");
  const r = await api(token, "/api/v1/contacts/import", { method: "POST", body: form });
  expect(r.status).toBe(202);
  return r.body.data.id;
}

async function waitDone(token: string, id: string, onProgress?: (d: any) => Promise<boolean> | boolean): Promise<any> {
  for (let i = 0; i < BUDGET_MS / 100; i++) {
    const d = (await api(token, `/api/v1/contacts/imports/${id}`)).body.data;
    if (d.status === "completed" || d.status === "failed") return d;
    if (onProgress && (await onProgress(d))) return d;
    await Bun.sleep(100);
  }
  throw new Error("import did not finish");
}

test(
  `import of ${ROWS.toLocaleString("en")} rows with bad rows mixed in: good kept, bad reported by row number, memory flat; export streams the same`,
  async () => {
    // a tenth of the rows first: the peak it leaves is the yardstick for "flat"
    const small = await workspace("small");
    const smallGen = await generate(ROWS / 10, 90_000_000);
    expect((await waitDone(small.token, await upload(small.token, smallGen.path))).status).toBe("completed");
    const afterSmall = memory(server.proc.pid);
    const ws = await workspace("big");
    const gen = await generate(ROWS, 0);
    const before = memory(server.proc.pid);
    const started = performance.now();
    const id = await upload(ws.token, gen.path);
    let processedSeen = 0;
    const rep = await waitDone(ws.token, id, (d) => {
      expect(d.processed).toBeGreaterThanOrEqual(processedSeen); // progress never goes back
      processedSeen = d.processed;
      return false;
    });
    const seconds = (performance.now() - started) / 1000;
    const after = memory(server.proc.pid);
    expect(rep).toMatchObject({ status: "completed", total: ROWS, processed: ROWS, created: gen.good, updated: 0, rejected: gen.badRows.length });
    expect(rep.errors.map((e: { row: number }) => e.row)).toEqual(gen.badRows.slice(0, 1000));
    expect(((await db.prepare("SELECT count(*) AS n FROM contacts WHERE workspace_id = ?").get(ws.id)) as { n: number }).n).toBe(gen.good);
    console.log(
      `import: ${ROWS} rows in ${seconds.toFixed(1)} s (${Math.round(ROWS / seconds)} rows/s); server peak RSS after ${ROWS / 10} rows ${afterSmall.peakMB} MB, ` +
        `RSS before the big file ${before.rssMB} MB, peak after it ${after.peakMB} MB (file ${(Bun.file(gen.path).size / MB).toFixed(1)} MB)`,
    );
    expect(after.peakMB).toBeLessThan(400);

    // the export of the same, read as a stream (counted, never held whole)
    const res = await fetch(`${server.url}/api/v1/contacts/export`, { headers: { authorization: `Bearer ${ws.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    let lines = 0;
    let head = "";
    let bytes = 0;
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) {
      bytes += chunk.length;
      if (head.length < 200) head += decoder.decode(chunk).slice(0, 200);
      for (const b of chunk) if (b === 10) lines++;
    }
    const exported = memory(server.proc.pid);
    console.log(`export: ${lines - 1} contacts, ${(bytes / MB).toFixed(1)} MB streamed; server peak RSS ${exported.peakMB} MB`);
    expect(head.split("\n")[0]).toBe("phone,name,tags,optedOut,createdAt,city,plan");
    expect(head.split("\n")[1]).toMatch(/^919700000000,"Person 0, Jr",lead,true,\d{4}-.*Z,City0,p0$/);
    expect(lines).toBe(1 + gen.good);
    expect(exported.peakMB).toBeLessThan(400);
  },
  BUDGET_MS,
);

test(
  "SIGKILL in the middle of an import, restart: it finishes with every row applied once",
  async () => {
    const ws = await workspace("crash");
    const gen = await generate(40_000, 50_000_000);
    const id = await upload(ws.token, gen.path);
    // kill as soon as some batches have committed and before the end
    const mid = await waitDone(ws.token, id, (d) => d.processed >= 2000);
    expect(mid.status).toBe("running");
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    const atKill = (await db.prepare("SELECT processed, created FROM contact_imports WHERE id = ?").get(id)) as { processed: number; created: number };
    server = await data.spawn({ env: ENV });
    const rep = await waitDone(ws.token, id);
    console.log(`crash import: killed at ${atKill.processed} of ${gen.good + gen.badRows.length} rows; resumed and completed`);
    expect(atKill.processed).toBeLessThan(40_000);
    // every phone in the file is distinct: a batch applied twice would show as `updated`
    expect(rep).toMatchObject({ status: "completed", total: 40_000, processed: 40_000, created: gen.good, updated: 0, rejected: gen.badRows.length });
    expect(((await db.prepare("SELECT count(*) AS n FROM contacts WHERE workspace_id = ?").get(ws.id)) as { n: number }).n).toBe(gen.good);
    expect(((await db.prepare("SELECT count(*) AS n FROM contact_import_errors WHERE import_id = ?").get(id)) as { n: number }).n).toBe(gen.badRows.length);
  },
  BUDGET_MS,
);
