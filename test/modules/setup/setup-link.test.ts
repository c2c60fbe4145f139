import { afterEach, expect, test } from "bun:test";
import { runLifecycle, setPlanManually } from "../../../src/modules/billing/subscription.ts";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { openSetupLink } from "../../../src/modules/setup/link.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { freshPostgres, testEngine } from "../../helpers/postgres.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const OWNER = { name: "Asha Rao", email: "asha@example.com", password: "Sturdy-pass-123", confirmPassword: "Sturdy-pass-123", tenantName: "Asha's Shop" };
const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;
const count = async (sql: string) => (await t.deps.db.prepare<{ n: number }>(sql).get())!.n;

test("a new server's setup link creates the first owner and workspace with no captcha and no codes, and signs the owner in", async () => {
  t = await createTestApp();
  const url = await openSetupLink(t.deps, "http://127.0.0.1:3000/app/");
  expect(url).toStartWith("http://127.0.0.1:3000/app/setup?token=");
  const token = tokenOf(url!);
  const before = await t.request("GET", `/api/setup?token=${encodeURIComponent(token)}`);
  expect(before.body.data).toEqual({ needsSetup: true, tokenValid: true, simNetwork: true, captcha: false, codes: { email: "outbox", mobile: "outbox" } });
  const r = await t.request("POST", "/api/setup", { body: { ...OWNER, token } });
  expect(r.status).toBe(201);
  expect(r.body.data).toMatchObject({ expiresIn: "15m", user: { email: "asha@example.com", role: "owner" } });
  // the answer is a login: its access token works at once
  const profile = await t.request("GET", "/api/auth/profile", { token: r.body.data.accessToken });
  expect(profile.body.data).toMatchObject({ email: "asha@example.com", role: "owner", tenantName: "Asha's Shop" });
  const ws = await t.deps.db.prepare(`SELECT plan_id AS "planId", subscription_status AS status, trial_ends_at AS "trialEndsAt", current_period_end AS "periodEnd" FROM workspaces`).get();
  expect(ws).toEqual({ planId: "unlimited", status: "active", trialEndsAt: null, periodEnd: null });
  // the account is verified: a password login signs in, no code asked
  const login = await t.request("POST", "/api/auth/login", { body: { email: OWNER.email, password: OWNER.password } });
  expect({ status: login.status, hasToken: typeof login.body.data?.accessToken }).toEqual({ status: 200, hasToken: "string" });
  // used once: the same link again creates nothing
  const again = await t.request("POST", "/api/setup", { body: { ...OWNER, email: "other@example.com", token } });
  expect({ status: again.status, code: again.body.code }).toEqual({ status: 404, code: "NOT_FOUND" });
  expect(again.body.message).toBe("This setup link is no longer valid: it works once, and only until the server restarts. While there is no workspace, the start log prints a new one");
  expect(await count("SELECT count(*) AS n FROM workspaces")).toBe(1);
  expect((await t.request("GET", `/api/setup?token=${token}`)).body.data).toMatchObject({ needsSetup: false, tokenValid: false });
});

test("a wrong or missing token creates nothing (404), and bad fields are all named at once, the password mismatch with them", async () => {
  t = await createTestApp();
  const token = tokenOf((await openSetupLink(t.deps, "http://h/app"))!);
  const wrong = await t.request("POST", "/api/setup", { body: { ...OWNER, token: token.slice(0, -2) + "xx" } });
  expect({ status: wrong.status, code: wrong.body.code }).toEqual({ status: 404, code: "NOT_FOUND" });
  const bad = await t.request("POST", "/api/setup", { body: { ...OWNER, email: "not-an-email", confirmPassword: "Other-pass-123", token } });
  expect(bad.status).toBe(400);
  expect(Object.keys(bad.body.errors).sort()).toEqual(["confirmPassword", "email"]);
  expect(await count("SELECT count(*) AS n FROM workspaces")).toBe(0);
  // and the link still works after those
  expect((await t.request("POST", "/api/setup", { body: { ...OWNER, token } })).status).toBe(201);
});

test("no setup link once a workspace exists, nor after a restart (a new process has its own, or none)", async () => {
  t = await createTestApp();
  await createWorkspace(t);
  expect(await openSetupLink(t.deps, "http://h/app")).toBeNull();
  expect((await t.request("GET", "/api/setup?token=anything")).body.data).toMatchObject({ needsSetup: false, tokenValid: false });
  const other = await createTestApp();
  try {
    const token = tokenOf((await openSetupLink(other.deps, "http://h/app"))!);
    // the token of one runtime is nothing to another (a restart)
    const fresh = await createTestApp();
    try {
      expect((await fresh.request("POST", "/api/setup", { body: { ...OWNER, token } })).status).toBe(404);
    } finally {
      await fresh.close();
    }
  } finally {
    await other.close();
  }
});

test("a registration that beat the setup link to the first workspace closes it (409)", async () => {
  t = await createTestApp();
  const token = tokenOf((await openSetupLink(t.deps, "http://h/app"))!);
  await createWorkspace(t);
  const r = await t.request("POST", "/api/setup", { body: { ...OWNER, token } });
  expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: "CONFLICT" });
  expect(await count("SELECT count(*) AS n FROM users WHERE email = 'asha@example.com'")).toBe(0);
});

test("the unlimited plan: no quotas, no billing, no lapse; not in the catalogue and not for sale", async () => {
  // online checkout configured, so a refusal below is about the plan, not about billing being manual
  t = await createTestApp({ config: { razorpayKeyId: "rzp_test_x", razorpayKeySecret: "secret" } });
  const token = tokenOf((await openSetupLink(t.deps, "http://h/app"))!);
  const owner = (await t.request("POST", "/api/setup", { body: { ...OWNER, token } })).body.data.accessToken as string;
  // more sessions than any plan of the catalogue allows (Pro: 10)
  for (let i = 0; i < 12; i++) expect((await t.request("POST", "/api/v1/chatapp", { token: owner, body: { name: `s${i}` } })).status).toBe(201);
  const sub = await t.request("GET", "/api/billing/subscription", { token: owner });
  expect(sub.body.data).toMatchObject({ planId: "unlimited", planName: "Unlimited", status: "active", unlimited: true, checkoutAvailable: false, campaigns: true });
  expect(sub.body.data.usage.sessions).toEqual({ used: 12, limit: null });
  const buy = await t.request("POST", "/api/billing/checkout", { token: owner, body: { planId: "pro", interval: "monthly" } });
  expect({ status: buy.status, code: buy.body.code }).toEqual({ status: 409, code: "CONFLICT" });
  // years later: still unlimited
  t.clock.advance(3 * 365 * 86_400_000);
  await runLifecycle(t.deps);
  expect(await t.deps.db.prepare("SELECT plan_id AS p, subscription_status AS s FROM workspaces").get()).toEqual({ p: "unlimited", s: "active" });
  // another workspace cannot see or buy it
  const other = await createWorkspace(t);
  const plans = await t.request("GET", "/api/billing/plans", { token: other.owner.token });
  expect(plans.body.data.map((p: { id: string }) => p.id)).not.toContain("unlimited");
  const sell = await t.request("POST", "/api/billing/checkout", { token: other.owner.token, body: { planId: "unlimited", interval: "monthly" } });
  expect({ status: sell.status, code: sell.body.code, field: Object.keys(sell.body.errors ?? {}) }).toEqual({ status: 400, code: "VALIDATION_ERROR", field: ["planId"] });
  expect(await t.deps.db.prepare("SELECT plan_id AS p FROM workspaces WHERE id = ?").get(other.id)).toEqual({ p: "growth" });
  // the operator can give it from the host (parley plan set), and no catalogue edit touches it
  await setPlanManually(t.deps, other.id, "unlimited", "monthly");
  expect(await t.deps.db.prepare("SELECT plan_id AS p, subscription_status AS s, trial_ends_at AS te FROM workspaces WHERE id = ?").get(other.id)).toEqual({ p: "unlimited", s: "active", te: null });
  await expect(upsertPlan(t.deps.db, "unlimited", { limits: { sessions: 1 } }, 0)).rejects.toThrow(/cannot be edited/);
});

test.skipIf(testEngine !== "postgres")("PostgreSQL only (nodes share a database there): two nodes each print a link of their own; each works only on its node, and of two used at once exactly one creates the workspace", async () => {
  const pg = await freshPostgres();
  const nodes: TestApp[] = [];
  try {
    nodes.push(await createTestApp({ config: { databaseUrl: pg.url } }), await createTestApp({ config: { databaseUrl: pg.url } }));
    const [a, b] = nodes as [TestApp, TestApp];
    const ta = tokenOf((await openSetupLink(a.deps, "http://a/app"))!);
    const tb = tokenOf((await openSetupLink(b.deps, "http://b/app"))!);
    expect(ta).not.toBe(tb);
    // a token is known only to the node that printed it
    const elsewhere = await b.request("POST", "/api/setup", { body: { ...OWNER, token: ta } });
    expect({ status: elsewhere.status, code: elsewhere.body.code }).toEqual({ status: 404, code: "NOT_FOUND" });
    const [ra, rb] = await Promise.all([
      a.request("POST", "/api/setup", { body: { ...OWNER, token: ta } }),
      b.request("POST", "/api/setup", { body: { ...OWNER, email: "other@example.com", token: tb } }),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([201, 409]);
    expect((await a.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM workspaces").get())!.n).toBe(1);
    expect((await a.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM users").get())!.n).toBe(1);
    // both links are done: the loser's node closed its own on the 409
    for (const [node, token] of [[a, ta], [b, tb]] as const) {
      expect((await node.request("GET", `/api/setup?token=${encodeURIComponent(token)}`)).body.data).toMatchObject({ needsSetup: false, tokenValid: false });
    }
  } finally {
    for (const n of nodes) await n.close();
    await pg.drop();
  }
});
