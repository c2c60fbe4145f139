import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { tablesInForeignKeyOrder } from "../../src/schema/table-order.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { createWorkspace } from "../helpers/fixtures.ts";
import { emptyPostgres, TEST_PG_URL } from "../helpers/postgres.ts";
import { BUN, ROOT, spawnServer, type ChildServer } from "../helpers/process.ts";
import { KnownCaptcha, lastCode, registered, signedIn, type AuthTestApp } from "../modules/auth/helpers.ts";
import { advanceUntil } from "../modules/campaigns/helpers.ts";
import { drain, waitFor } from "../modules/messages/helpers.ts";
import { startReceiver, type Receiver } from "../net/receiver.ts";

// `parley migrate-data`: a data dir built through the app on SQLite, moved by the command as a
// real process, then served by a real server on PostgreSQL that must answer the same.

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

async function parley(...args: string[]) {
  const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), ...args], { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err] = [await new Response(p.stdout).text(), await new Response(p.stderr).text()];
  return { code: await p.exited, out, err };
}

async function call(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed, bytes: text };
}

/** Row counts of every table, straight from the SQLite file. */
function sqliteCounts(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    return Object.fromEntries(tablesInForeignKeyOrder().map((t) => [t.name, (db.query(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n]));
  } finally {
    db.close();
  }
}

async function postgresCounts(sql: postgres.Sql): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tablesInForeignKeyOrder()) out[t.name] = Number((await sql.unsafe(`SELECT count(*) AS n FROM "${t.name}"`))[0]!.n);
  return out;
}

describe("refusals before any copy (no PostgreSQL needed)", () => {
  const nowhere = "postgres://nobody@127.0.0.1:1/none";

  test("a data dir without a database, a --to that is not a PostgreSQL URL: exit 2, one line", async () => {
    const empty = tempDir("parley-md-empty-");
    const none = await parley("migrate-data", "--from", empty, "--to", nowhere);
    expect(none.code).toBe(2);
    expect(none.err).toContain(`no database at ${join(empty, "parley.db")}`);
    const bad = await parley("migrate-data", "--from", empty, "--to", "mysql://x@y/z");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--to must be a postgres:// or postgresql:// URL");
  });

  test("a server holding the data dir: exit 2, nothing tried", async () => {
    const dir = tempDir("parley-md-busy-");
    expect((await parley("migrate", "-d", dir)).code).toBe(0);
    // this test process stands in for the server: a live pid in parley.pid
    writeFileSync(join(dir, "parley.pid"), String(process.pid));
    const r = await parley("migrate-data", "--from", dir, "--to", nowhere);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`a Parley server (pid ${process.pid}) is using ${dir}: stop it`);
    expect(r.out).not.toContain("verified");
  });
});

const pgTitle = TEST_PG_URL
  ? "a data dir built through the app moves to PostgreSQL; a server there answers the same data, tokens, sealed secrets and media"
  : "NOT RUN on PostgreSQL (set PARLEY_TEST_DATABASE_URL): moving a data dir to PostgreSQL and serving it there";

let server: ChildServer | undefined;
let receiver: Receiver | undefined;
let target: { url: string; drop(): Promise<void> } | undefined;
afterAll(async () => {
  await server?.stop();
  receiver?.stop();
  await target?.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test.skipIf(!TEST_PG_URL)(
  pgTitle,
  async () => {
    receiver = startReceiver();
    const dataDir = tempDir("parley-md-");
    const created = await createTestApp({
      fileDb: true,
      // SQLite whatever engine the suite runs on; the sim network keeps its linked devices in the data dir
      config: { dataDir, databaseUrl: "", webhookAllowHttp: true, webhookAllowPrivate: true, authRateLimitPerMinute: 100_000, sendMinGapMs: 0, sendJitterMs: 0 },
      sim: { dataDir },
      // the secrets a real installation has: generated into secrets.json, not the test's fixed ones
      overrides: { secrets: undefined },
    });
    const t: AuthTestApp = Object.assign(created, { captcha: new KnownCaptcha() });
    const before = await buildInstallation(t, receiver);
    await t.close();

    target = await emptyPostgres();
    // one transaction: a value PostgreSQL refuses in the last message copied leaves every table empty
    const file = join(dataDir, "parley.db");
    const last = new Database(file);
    const victim = last.query("SELECT id, created_at AS at FROM messages ORDER BY rowid DESC LIMIT 1").get() as { id: string; at: number };
    last.query("UPDATE messages SET created_at = 'not a time' WHERE id = ?").run(victim.id);
    last.close();
    const failed = await parley("migrate-data", "--from", dataDir, "--to", target.url);
    expect(failed.code).toBe(1);
    expect(failed.err).toStartWith("parley: copying messages failed: ");
    expect(failed.err).toContain("the transaction was rolled back");
    expect(failed.out).toMatch(/^\s+contacts\s+1\d row\(s\) in /m); // copied, then rolled back
    const check = postgres(target.url, { max: 1, onnotice: () => {} });
    expect(Object.values(await postgresCounts(check)).every((n) => n === 0)).toBe(true);
    await check.end();
    const fix = new Database(file);
    fix.query("UPDATE messages SET created_at = ? WHERE id = ?").run(victim.at, victim.id);
    fix.close();

    // the command, as an operator runs it (again, into the database the failed run left migrated and empty)
    const moved = await parley("migrate-data", "--from", dataDir, "--to", target.url);
    expect(moved.err).toBe("");
    expect(moved.code).toBe(0);
    expect(moved.out).toMatch(/^\s+messages\s+\d+ row\(s\) in \d+\.\d s$/m);
    expect(moved.out).toContain("verified: the row counts of all");
    expect(moved.out).toContain(`${dataDir}/media (1 file(s)) stays on disk`);

    // counted independently: every table, both sides
    const sql = postgres(target.url, { max: 1, onnotice: () => {} });
    try {
      const sqlite = sqliteCounts(join(dataDir, "parley.db"));
      const pg = await postgresCounts(sql);
      expect(pg).toEqual({ ...sqlite, instance_secrets: sqlite.instance_secrets! + 2 });
      for (const table of ["workspaces", "users", "chat_sessions", "contacts", "contact_tags", "contact_attributes", "messages", "webhooks", "webhook_deliveries", "campaigns", "campaign_recipients", "media", "refresh_tokens", "api_keys", "notifications"]) {
        expect(`${table}: ${sqlite[table]! > 0}`).toBe(`${table}: true`);
      }
      expect(moved.out).toMatch(new RegExp(`^\\s+messages\\s+${sqlite.messages} row\\(s\\) in `, "m"));
      const secrets = JSON.parse(readFileSync(join(dataDir, "secrets.json"), "utf8")) as Record<string, string>;
      const stored = Object.fromEntries((await sql`SELECT name, value FROM instance_secrets`).map((r) => [r.name, r.value]));
      expect(stored).toEqual({ jwtSecret: secrets.jwtSecret, credentialKey: secrets.credentialKey });
    } finally {
      await sql.end();
    }

    // a real server on PostgreSQL, with the same data dir (media) and the network it knew
    server = await spawnServer({ dataDir, args: ["--database-url", target.url, "--captcha", "off"], env: { PARLEY_WEBHOOK_ALLOW_HTTP: "true", PARLEY_WEBHOOK_ALLOW_PRIVATE: "true" } });
    const base = server.url;
    const token = before.accessToken; // issued by the SQLite installation
    for (const [path, answer] of Object.entries(before.answers)) {
      const now = await call(base, token, "GET", path);
      expect({ path, status: now.status, body: now.body }).toEqual({ path, status: 200, body: answer });
    }
    // the password, the refresh token and the API key of before
    const login = await call(base, "", "POST", "/api/auth/login", { email: before.email, password: before.password });
    expect(login.status).toBe(200);
    expect((await call(base, "", "POST", "/api/auth/refresh", { refreshToken: before.refreshToken })).status).toBe(200);
    const viaKey = await fetch(`${base}/api/external/messages/${before.messageId}`, { headers: { "x-api-key": before.apiKey } });
    expect(viaKey.status).toBe(200);
    // the media file, from the data dir that stayed on disk
    const media = await fetch(`${base}/api/v1/media/${before.mediaId}`, { headers: { authorization: `Bearer ${token}` } });
    expect(media.status).toBe(200);
    expect(new Uint8Array(await media.arrayBuffer())).toEqual(before.mediaBytes);

    // sealed with the moved credential key: the session's link reconnects it, the webhook's secret signs
    await waitFor(async () => (await call(base, token, "GET", `/api/v1/chatapp/${before.sessionId}/status`)).body?.data?.status === "connected", "session reconnected", 10_000);
    // the link itself comes up when this node takes the session's lease (the stored status may say connected first)
    // (asked every 200 ms: the member's per-minute rate limit counts every try)
    const inbound = await waitFor(async () => {
      const r = await call(base, token, "POST", `/api/sim/sessions/${before.sessionId}/inbound`, { from: "919800000777", text: "after the move" });
      if (r.status !== 409) return r;
      await Bun.sleep(200);
    }, "link up on the sim network", 15_000);
    expect(inbound.status).toBe(200);
    const got = await waitFor(() => receiver!.received.find((r) => r.body.includes("after the move")), "webhook delivery", 10_000);
    expect(got.headers.get("x-webhook-signature")).toBe(createHmac("sha256", before.webhookSecret).update(got.body).digest("hex"));

    expect(server.logs()).not.toContain('"level":"error"');

    // a second run refuses, copying nothing: while a server uses the database, and once it stopped
    const busy = await parley("migrate-data", "--from", dataDir, "--to", target.url);
    expect(busy.code).toBe(2);
    expect(busy.err).toMatch(/^parley: \d+ other Parley connection\(s\) use .*: stop the servers started on it/);
    expect(await server.stop()).toBe(0);
    server = undefined;
    const again = await parley("migrate-data", "--from", dataDir, "--to", target.url);
    expect(again.code).toBe(2);
    expect(again.err).toContain("already holds data (2 workspace(s))");
    expect(again.err).toContain("drop the database and create it again");
  },
  120_000,
);

/** A workspace as it is used: registered over HTTP, a linked session, contacts, messages both ways, a webhook with deliveries, a campaign, media. */
async function buildInstallation(t: AuthTestApp, rx: Receiver) {
  const account = await registered(t);
  const token0 = account.registrationToken;
  const ok = async (p: Promise<{ status: number; body: any }>, status = 200) => {
    const r = await p;
    if (r.status !== status) throw new Error(`expected ${status}, got ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await ok(t.request("POST", "/api/auth/mobile/send-otp", { token: token0 }));
  await ok(t.request("POST", "/api/auth/mobile/verify-otp", { token: token0, body: { otpCode: await lastCode(t, account.mobile) } }));
  await ok(t.request("POST", "/api/auth/email/send-verification-code", { token: token0 }));
  await ok(t.request("POST", "/api/auth/email/verify", { token: token0, body: { code: await lastCode(t, account.email) } }));
  const session = await signedIn(t, account.email, account.password);
  const token = session.accessToken;
  // another tenant beside it, with members of several roles
  const other = await createWorkspace(t, { name: "Beside" });
  await other.member("agent");
  await other.member("viewer");

  const apiKey = (await ok(t.request("POST", "/api/api-keys", { token, body: { name: "crm" } }), 201)).data.key as string;
  const sessionId = (await ok(t.request("POST", "/api/v1/chatapp", { token, body: { name: "desk" } }), 201)).data.id as string;
  await ok(t.request("POST", `/api/v1/chatapp/${sessionId}/connect`, { token }));
  await waitFor(() => t.sim.currentQr(sessionId), "QR");
  await ok(t.request("POST", `/api/sim/sessions/${sessionId}/scan`, { token, body: { phoneNumber: "919812345678" } }));
  await waitFor(async () => (await t.request("GET", `/api/v1/chatapp/${sessionId}/status`, { token })).body.data.status === "connected", "connected");

  const hook = (await ok(t.request("POST", "/api/webhooks", { token, body: { name: "crm", url: `${rx.url}/in`, events: ["message_received", "message_sent"] } }), 201)).data;

  const contactIds: string[] = [];
  for (let i = 0; i < 12; i++) {
    const body = { phone: `91977000${String(i).padStart(4, "0")}`, name: `Person ${i}`, tags: i % 2 ? ["vip", "b2b"] : ["lead"], attributes: { city: i % 3 ? "Pune" : "Kochi", tier: String(i % 4) } };
    contactIds.push((await ok(t.request("POST", "/api/v1/contacts", { token, body }), 201)).data.id);
  }
  let messageId = "";
  for (let i = 0; i < 8; i++) {
    const r = await ok(t.request("POST", "/api/v1/messages/send", { token, body: { session_id: sessionId, to: `91977000${String(i).padStart(4, "0")}`, type: "text", body: `hello ${i} — ünïcode ✓` } }), 202);
    messageId ||= r.data.id ?? r.data.messageId;
  }
  await drain(t);
  for (let i = 0; i < 3; i++) t.sim.inbound(sessionId, { from: `9197700000${i}0`, type: "text", text: `reply ${i}` });
  await waitFor(async () => (await t.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM messages WHERE direction = 'inbound'").get())!.n >= 3, "inbound");
  const campaign = await ok(
    t.request("POST", "/api/v1/campaigns", {
      token,
      body: { name: "launch", sessionIds: [sessionId], message: { type: "text", body: "Hi {{name|friend}}" }, audience: { contactIds: contactIds.slice(0, 6) }, pacing: { perMinute: 600, jitterPercent: 0, warmup: false } },
    }),
    201,
  );
  await ok(t.request("POST", `/api/v1/campaigns/${campaign.data.id}/start`, { token }));
  // settled before the snapshot: nothing left for the server on PostgreSQL to change
  const count = async (q: string) => Number((await t.deps.db.prepare<{ n: number }>(q).get())!.n);
  await advanceUntil(t, 250, async () => (await t.request("GET", `/api/v1/campaigns/${campaign.data.id}`, { token })).body.data.status === "completed" && (await count("SELECT count(*) AS n FROM messages WHERE status = 'queued'")) === 0, 2000);
  while ((await t.services.webhooks.runDue()) > 0);
  expect(await count("SELECT count(*) AS n FROM webhook_deliveries")).toBeGreaterThan(0);
  expect(await count("SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'success'")).toBe(0);

  const mediaBytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x34, 0x0a, ...new TextEncoder().encode("%%EOF\n")]);
  const form = new FormData();
  form.append("file", new File([mediaBytes], "note.pdf", { type: "application/pdf" }));
  const mediaId = (await ok(t.request("POST", "/api/v1/media", { token, body: form }), 201)).data.id as string;

  const paths = [
    "/api/v1/messages?limit=100",
    "/api/v1/contacts?limit=100",
    "/api/v1/contacts?tag=vip&limit=100",
    `/api/v1/contacts/${contactIds[3]}`,
    "/api/webhooks",
    `/api/webhooks/${hook.id}/history?limit=100`,
    `/api/v1/campaigns/${campaign.data.id}`,
    "/api/v1/campaigns",
    "/api/api-keys",
    "/api/v1/inbox/conversations",
  ];
  const answers: Record<string, unknown> = {};
  for (const path of paths) answers[path] = (await ok(t.request("GET", path, { token }))) as unknown;
  return {
    email: account.email,
    password: account.password,
    accessToken: token,
    refreshToken: session.refreshToken,
    apiKey,
    sessionId,
    messageId,
    webhookSecret: hook.secret as string,
    mediaId,
    mediaBytes,
    answers,
  };
}
