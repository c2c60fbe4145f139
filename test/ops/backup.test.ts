import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { list } from "tar";
import { BUN, ROOT, spawnServer, type ChildServer } from "../helpers/process.ts";

// Backup (docs/operations.md): a backup taken while a real server keeps writing, restored into a new data dir, served again.

let dataDir: string;
let server: ChildServer;
let token: string;
let sessionId: string;
let mediaId: string;
const root = mkdtempSync(join(tmpdir(), "parley-backup-"));

async function parley(...args: string[]) {
  const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), ...args], { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err] = [await new Response(p.stdout).text(), await new Response(p.stderr).text()];
  return { code: await p.exited, out, err };
}

async function api(base: string, method: string, path: string, body?: unknown, auth = token) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${auth}`, ...(body instanceof FormData || body === undefined ? {} : { "content-type": "application/json" }) },
    body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

const login = async (base: string) => (await api(base, "POST", "/api/auth/login", { email: "owner@example.com", password: "Sturdy-pass-123" }, "")).body?.data?.accessToken as string;

beforeAll(async () => {
  dataDir = join(root, "data");
  server = await spawnServer({ dataDir, args: ["--captcha", "off", "--send-min-gap-ms", "0", "--send-jitter-ms", "0"] });
  const ws = await parley("workspaces", "create", "--name", "Acme", "--owner-email", "owner@example.com", "--owner-name", "Owner", "--password", "Sturdy-pass-123", "-d", dataDir);
  expect(ws.code).toBe(0);
  token = await login(server.url);
  sessionId = (await api(server.url, "POST", "/api/v1/chatapp", { name: "desk" })).body.data.id;
  await api(server.url, "POST", `/api/v1/chatapp/${sessionId}/connect`);
  await api(server.url, "POST", `/api/sim/sessions/${sessionId}/scan`, { phoneNumber: "919800000001" });
  for (let i = 0; i < 200 && (await api(server.url, "GET", `/api/v1/chatapp/${sessionId}/status`)).body.data.status !== "connected"; i++) await Bun.sleep(20);
  const form = new FormData();
  form.append("file", new File([new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x34, 0x0a, ...new TextEncoder().encode("%%EOF\n")])], "note.pdf", { type: "application/pdf" }));
  const up = await api(server.url, "POST", "/api/v1/media", form);
  expect(up.status).toBe(201);
  mediaId = up.body.data.id;
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

test("backup while the server writes: consistent, checked, with secrets and media; restore serves it again", async () => {
  // a writer that keeps committing messages for as long as the backups run
  let acked = 0;
  let writing = true;
  const writer = (async () => {
    while (writing) {
      const r = await api(server.url, "POST", "/api/v1/messages/send", { session_id: sessionId, to: "919800000002", type: "text", body: `m${acked}` });
      if (r.status === 202) acked++;
    }
  })();
  while (acked < 20) await Bun.sleep(10);
  const before = acked;
  const file = join(root, "parley.tar.gz");
  const b = await parley("backup", file, "-d", dataDir);
  expect(b.err).toBe("");
  expect(b.code).toBe(0);
  expect(b.out).toContain("integrity ok");
  const second = await parley("backup", join(root, "second.tar.gz"), "-d", dataDir);
  expect(second.err).toBe("");
  expect(second.code).toBe(0);
  writing = false;
  await writer;
  expect(acked).toBeGreaterThan(before); // the server kept writing through the backups

  expect(statSync(file).mode & 0o777).toBe(0o600); // it holds the secrets
  const entries: string[] = [];
  await list({ file, onReadEntry: (e) => void entries.push(e.path) });
  expect(entries).toContain("parley-backup.json");
  expect(entries).toContain("parley.db");
  expect(entries).toContain("secrets.json");
  expect(entries.some((e) => e.endsWith(mediaId))).toBe(true);
  expect(entries.filter((e) => /parley\.(pid|url)|-wal$|-shm$/.test(e))).toEqual([]);

  // refused while the server holds the data dir, and into a directory that is not empty
  const busy = await parley("restore", file, "-d", dataDir);
  expect(busy.code).toBe(1);
  expect(busy.err).toContain(`is using the data dir ${dataDir}`);
  const full = join(root, "full");
  await Bun.write(join(full, "something"), "x");
  expect((await parley("restore", file, "-d", full)).err).toContain("not empty");
  const junk = join(root, "junk.tar.gz");
  writeFileSync(junk, "not a backup");
  expect((await parley("restore", junk, "-d", join(root, "junk-dir"))).code).toBe(1);

  const restored = join(root, "restored");
  const r = await parley("restore", file, "-d", restored);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  expect(readdirSync(restored).sort()).toEqual(expect.arrayContaining(["media", "parley.db", "secrets.json"]));
  expect(existsSync(join(restored, "parley.pid"))).toBe(false);
  expect(statSync(join(restored, "secrets.json")).mode & 0o777).toBe(0o600);
  const db = new Database(join(restored, "parley.db"), { readonly: true });
  expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  const count = (db.query("SELECT count(*) AS n FROM messages").get() as { n: number }).n;
  db.close();
  expect(count).toBeGreaterThanOrEqual(before); // everything acknowledged before the backup began
  expect(count).toBeLessThanOrEqual(acked);

  const again = await spawnServer({ dataDir: restored, args: ["--captcha", "off"] });
  try {
    const t2 = await login(again.url);
    expect(t2).toBeString();
    const media = await fetch(`${again.url}/api/v1/media/${mediaId}`, { headers: { authorization: `Bearer ${t2}` } });
    expect(media.status).toBe(200);
    // the same secrets: a token signed before the backup is still good on the restored server
    expect((await api(again.url, "GET", "/api/workspace")).status).toBe(200);
  } finally {
    await again.stop();
  }
}, 90_000);
