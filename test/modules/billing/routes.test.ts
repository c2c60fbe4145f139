import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { setPlanManually } from "../../../src/modules/billing/subscription.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;

beforeAll(async () => {
  t = await createTestApp();
  a = await createWorkspace(t);
  b = await createWorkspace(t);
});
afterAll(() => t.close());

describe("GET /api/billing/plans", () => {
  test("the default catalogue in INR (paise and rupees), monthly and annual", async () => {
    const viewer = await a.member("viewer");
    const r = await t.request("GET", "/api/billing/plans", { token: viewer.token });
    expect(r.status).toBe(200);
    expect(r.body.data.map((p: any) => p.id)).toEqual(["free", "starter", "growth", "pro"]);
    expect(r.body.data[2]).toEqual({
      id: "growth",
      name: "Growth",
      currency: "INR",
      monthlyPaise: 249_900,
      annualPaise: 2_499_000,
      monthlyPrice: 2499,
      annualPrice: 24990,
      limits: { sessions: 3, messagesPerMonth: 50_000, contacts: 25_000, apiRequestsPerDay: 50_000, webhooks: 10, teamSeats: 5, campaigns: true },
    });
  });

  test("operator changes show; a retired plan is not offered", async () => {
    await upsertPlan(t.deps.db, "starter", { monthlyPaise: 1_099_00 }, 0);
    await upsertPlan(t.deps.db, "legacy", { name: "Legacy", monthlyPaise: 500_00, annualPaise: 5_000_00, active: false }, 0);
    const r = await t.request("GET", "/api/billing/plans", { token: a.owner.token });
    expect(r.body.data.find((p: any) => p.id === "starter").monthlyPrice).toBe(1099);
    expect(r.body.data.map((p: any) => p.id)).not.toContain("legacy");
    await upsertPlan(t.deps.db, "starter", { monthlyPaise: 999_00 }, 0);
  });

  test("no credential: 401", async () => {
    expect((await t.request("GET", "/api/billing/plans")).status).toBe(401);
  });
});

describe("GET /api/billing/subscription", () => {
  test("trial: status, dates, Growth quotas and usage", async () => {
    const ws = await createWorkspace(t);
    await ws.member("agent");
    await t.request("POST", "/api/team/invitations", { token: ws.owner.token, body: { email: `sub-${Bun.randomUUIDv7()}@example.com`, role: "viewer" } });
    const now = t.clock.now().getTime();
    await t.deps.db.prepare("INSERT INTO chat_sessions (id, workspace_id, name, created_at, updated_at) VALUES (?, ?, 'main', ?, ?)").run(Bun.randomUUIDv7(), ws.id, now, now);
    const r = await t.request("GET", "/api/billing/subscription", { token: ws.owner.token });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      planId: "growth",
      planName: "Growth",
      status: "trialing",
      effectivePlanId: "growth",
      trialEndsAt: new Date(now + 14 * 86_400_000).toISOString(),
      currentPeriodEnd: null,
      interval: null,
      provider: null,
      checkoutAvailable: false,
      campaigns: true,
    });
    expect(r.body.data.usage).toEqual({
      sessions: { used: 1, limit: 3 },
      messagesPerMonth: { used: 0, limit: 50_000 },
      contacts: { used: 0, limit: 25_000 },
      apiRequestsPerDay: { used: 0, limit: 50_000 },
      webhooks: { used: 0, limit: 10 },
      teamSeats: { used: 3, limit: 5 },
    });
  });

  test("after manual billing: active with period, interval and provider manual", async () => {
    const ws = await createWorkspace(t);
    await setPlanManually(t.deps, ws.id, "pro", "annual");
    const r = await t.request("GET", "/api/billing/subscription", { token: ws.owner.token });
    expect(r.body.data).toMatchObject({ planId: "pro", status: "active", interval: "annual", provider: "manual" });
    expect(r.body.data.usage.sessions.limit).toBe(10);
    const inv = await t.request("GET", "/api/billing/invoices", { token: ws.owner.token });
    expect(inv.body.data).toHaveLength(1);
    expect(inv.body.data[0]).toMatchObject({ provider: "manual", planId: "pro", interval: "annual", amountPaise: 5_999_000 });
    expect(inv.body.pagination).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
  });
});

describe("GET /api/billing/invoices", () => {
  test("tenancy: only the caller's invoices", async () => {
    await setPlanManually(t.deps, b.id, "starter", "monthly");
    const r = await t.request("GET", "/api/billing/invoices", { token: a.owner.token });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
    expect((await t.request("GET", "/api/billing/invoices", { token: b.owner.token })).body.data).toHaveLength(1);
  });

  test("pagination is validated", async () => {
    const r = await t.request("GET", "/api/billing/invoices?limit=101", { token: a.owner.token });
    expect(r.status).toBe(400);
    expect(r.body.errors.limit).toBeDefined();
  });
});
