import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, spawnServer, type ChildServer } from "../helpers/process.ts";

// The operator's first hour from a terminal: accounts without the captcha, commands that find the
// running server from the data dir alone, and refusals that say what they called.

let dataDir: string;
let server: ChildServer;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "parley-accounts-"));
  server = await spawnServer({ dataDir, args: ["--captcha", "off"] });
});
afterAll(async () => {
  await server.stop();
});

async function parley(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) {
  const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), ...args], {
    cwd: ROOT,
    stdin: opts.stdin === undefined ? "ignore" : new TextEncoder().encode(opts.stdin),
    stdout: "pipe",
    stderr: "pipe",
    // a shell whose PARLEY_PORT points elsewhere: the data dir must win
    env: { ...process.env, PARLEY_PORT: "1", ...opts.env },
  });
  const [out, err] = [await new Response(p.stdout).text(), await new Response(p.stderr).text()];
  return { code: await p.exited, out, err };
}

const login = (email: string, password: string) =>
  fetch(`${server.url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as any,
  }));

test("workspaces create: a trial workspace with a verified owner who can log in at once (no captcha, no codes)", async () => {
  const r = await parley(["workspaces", "create", "--name", "Acme", "--owner-email", "Asha@Example.com", "--owner-name", "Asha", "--owner-mobile", "+91 98000-12345", "--password-stdin", "-d", dataDir, "--json"], {
    stdin: "Sturdy-pass-123\n",
  });
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  const created = JSON.parse(r.out);
  expect(created.password).toBeUndefined();
  const session = await login("asha@example.com", "Sturdy-pass-123");
  expect(session.status).toBe(200);
  const token = session.body.data.accessToken ?? session.body.data.tokens?.accessToken;
  const ws = await (await fetch(`${server.url}/api/workspace`, { headers: { authorization: `Bearer ${token}` } })).json();
  expect(ws.data).toMatchObject({ id: created.workspaceId, name: "Acme", planId: "growth", subscriptionStatus: "trialing" });
  const me = await (await fetch(`${server.url}/api/auth/profile`, { headers: { authorization: `Bearer ${token}` } })).json();
  expect(me.data).toMatchObject({ email: "asha@example.com", role: "owner", mobileMasked: "91******2345", mobileVerified: true });
  // the same email again: refused, nothing added
  const again = await parley(["workspaces", "create", "--name", "Other", "--owner-email", "asha@example.com", "--owner-name", "Asha", "--password", "Sturdy-pass-123", "-d", dataDir]);
  expect(again.code).toBe(1);
  expect(again.err).toContain("already exists");
});

test("users create: a verified member with a role; a generated password is printed once", async () => {
  const r = await parley(["users", "create", "-w", "Acme", "--email", "ravi@example.com", "--name", "Ravi", "--role", "admin", "-d", dataDir]);
  expect(r.code).toBe(0);
  const password = /password: (\S+)/.exec(r.out)?.[1];
  expect(password).toMatch(/^[A-Za-z0-9]{20}$/);
  const session = await login("ravi@example.com", password!);
  expect(session.status).toBe(200);
  const bad = await parley(["users", "create", "-w", "Acme", "--email", "not-an-email", "--name", "R", "--role", "boss", "--password", "x", "-d", dataDir]);
  expect(bad.code).toBe(1);
  for (const field of ["--email", "--name", "--role", "password"]) expect(bad.err).toContain(field);
});

test("operator commands find the running server from the data dir (port 0, PARLEY_PORT elsewhere)", async () => {
  expect(existsSync(join(dataDir, "parley.url"))).toBe(true);
  const r = await parley(["sessions", "create", "desk", "-w", "Acme", "-d", dataDir]);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  expect(r.out).toContain('"desk"');
});

test("a refusal from the server shows the URL that was called", async () => {
  const r = await parley(["sessions", "create", "desk", "-w", "Acme", "-d", dataDir]);
  expect(r.code).toBe(1);
  expect(r.err).toContain("CONFLICT");
  expect(r.err).toContain(`POST ${server.url}/api/v1/chatapp`);
});

test("a data dir without a database is refused and left as it was", async () => {
  const empty = mkdtempSync(join(tmpdir(), "parley-nodb-"));
  for (const args of [
    ["workspaces", "list"],
    ["workspaces", "create", "--name", "X", "--owner-email", "x@example.com", "--owner-name", "Xi", "--password", "Sturdy-pass-123"],
    ["users", "list", "-w", "X"],
    ["keys", "list", "-w", "X"],
    ["sessions", "list"],
    ["pair", "desk"],
  ]) {
    const r = await parley([...args, "-d", empty]);
    expect({ args, code: r.code }).toEqual({ args, code: 1 });
    expect(r.err).toContain(`no database in ${empty}`);
  }
  expect(readdirSync(empty)).toEqual([]);
});

test("once the server is gone, the failure names the URL it tried and where it came from", async () => {
  const dir = mkdtempSync(join(tmpdir(), "parley-gone-"));
  const s = await spawnServer({ dataDir: dir, args: ["--captcha", "off"] });
  const ws = await parley(["workspaces", "create", "--name", "Gone", "--owner-email", "g@example.com", "--owner-name", "Gita", "--password", "Sturdy-pass-123", "-d", dir]);
  expect(ws.code).toBe(0);
  expect(await s.stop()).toBe(0);
  expect(existsSync(join(dir, "parley.url"))).toBe(false);
  const r = await parley(["sessions", "create", "desk", "-d", dir]);
  expect(r.code).toBe(1);
  expect(r.err).toContain("cannot reach the server: POST http://127.0.0.1:1/api/v1/chatapp");
  expect(r.err).toContain("no server announced itself");
}, 30_000);

test("workspaces create --plan unlimited: the operator's own business, no quotas and no billing; an unknown plan is refused", async () => {
  const r = await parley(["workspaces", "create", "--name", "Own Shop", "--owner-email", "own@example.com", "--owner-name", "Owner", "--password", "Sturdy-pass-123", "--plan", "unlimited", "-d", dataDir, "--json"]);
  expect(r.err).toBe("");
  expect(JSON.parse(r.out)).toMatchObject({ plan: "unlimited" });
  const token = (await login("own@example.com", "Sturdy-pass-123")).body.data.accessToken;
  const sub = await (await fetch(`${server.url}/api/billing/subscription`, { headers: { authorization: `Bearer ${token}` } })).json();
  expect(sub.data).toMatchObject({ planId: "unlimited", status: "active", unlimited: true, trialEndsAt: null });
  const bad = await parley(["workspaces", "create", "--name", "X Shop", "--owner-email", "x@example.com", "--owner-name", "Xavier", "--password", "Sturdy-pass-123", "--plan", "platinum", "-d", dataDir]);
  expect(bad.code).toBe(1);
  expect(bad.err).toContain("--plan");
  expect(await (await parley(["workspaces", "list", "-d", dataDir, "--json"])).out).not.toContain("x@example.com");
});
