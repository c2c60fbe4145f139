import { afterEach, describe, expect, test } from "bun:test";
import { assertCanSend, assertFeature, effectiveLimits } from "../../../src/modules/billing/quota.ts";
import { addMonths, PAST_DUE_GRACE_MS, setPlanManually } from "../../../src/modules/billing/subscription.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace } from "../../helpers/fixtures.ts";

const DAY = 86_400_000;
let t: TestApp;
afterEach(() => t?.close());

const lifecycle = (app: TestApp) => app.services.periodic.find((j) => j.name === "billing.lifecycle")!;
const ws = async (app: TestApp, id: string) =>
  (await app.deps.db.prepare('SELECT plan_id AS "planId", subscription_status AS status, billing_interval AS "interval" FROM workspaces WHERE id = ?').get(id)) as any;
const codeOf = async (fn: () => unknown) => {
  try {
    await fn();
    return null;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe("end of the trial", () => {
  test("policy free: the workspace moves to the Free plan, keeps its data and can still send", async () => {
    t = await createTestApp({ config: { trialEndPolicy: "free" } });
    const w = await createWorkspace(t); // trial ends in 14 days
    const agent = await w.member("agent");
    expect((await effectiveLimits(t.deps, w.id)).sessions).toBe(3); // Growth quotas during the trial
    t.clock.advance(14 * DAY - 1000);
    await lifecycle(t).run();
    expect((await ws(t, w.id)).status).toBe("trialing");
    t.clock.advance(1000);
    await lifecycle(t).run();
    expect(await ws(t, w.id)).toEqual({ planId: "free", status: "free", interval: null });
    expect(await effectiveLimits(t.deps, w.id)).toMatchObject({ sessions: 1, messagesPerMonth: 1000, teamSeats: 1, campaigns: false });
    expect(await codeOf(() => assertCanSend(t.deps, w.id))).toBeNull();
    expect(await codeOf(() => assertFeature(t.deps, w.id, "campaigns"))).toBe("SUBSCRIPTION_INACTIVE");
    expect(await t.deps.db.prepare("SELECT id FROM users WHERE id = ?").get(agent.userId)).toBeDefined();
    await lifecycle(t).run(); // safe to run twice
    expect((await ws(t, w.id)).status).toBe("free");
    const token = await accessToken(t, w.owner.userId, w.id, "owner");
    const sub = await t.request("GET", "/api/billing/subscription", { token });
    expect(sub.body.data).toMatchObject({ planId: "free", status: "free", effectivePlanId: "free" });
  });

  test("policy pause: outbound messaging is blocked with SUBSCRIPTION_INACTIVE, data kept", async () => {
    t = await createTestApp({ config: { trialEndPolicy: "pause" } });
    const w = await createWorkspace(t);
    const agent = await w.member("agent");
    expect(await codeOf(() => assertCanSend(t.deps, w.id))).toBeNull();
    t.clock.advance(14 * DAY);
    await lifecycle(t).run();
    expect((await ws(t, w.id)).status).toBe("paused");
    expect(await codeOf(() => assertCanSend(t.deps, w.id))).toBe("SUBSCRIPTION_INACTIVE");
    expect(await t.deps.db.prepare("SELECT id FROM users WHERE id = ?").get(agent.userId)).toBeDefined();
    // reading still works; a payment (here: the operator's manual billing) lifts the pause
    const token = await accessToken(t, w.owner.userId, w.id, "owner");
    expect((await t.request("GET", "/api/team/members", { token })).status).toBe(200);
    await setPlanManually(t.deps, w.id, "starter", "monthly");
    expect(await ws(t, w.id)).toEqual({ planId: "starter", status: "active", interval: "monthly" });
    expect(await codeOf(() => assertCanSend(t.deps, w.id))).toBeNull();
  });

  test("workspaces still in their trial and paid ones are left alone", async () => {
    t = await createTestApp();
    const trialing = await createWorkspace(t);
    t.clock.advance(10 * DAY);
    const later = await createWorkspace(t);
    const paid = await createWorkspace(t, { planId: "pro", status: "active" });
    t.clock.advance(5 * DAY);
    await lifecycle(t).run();
    expect((await ws(t, trialing.id)).status).toBe("free");
    expect((await ws(t, later.id)).status).toBe("trialing");
    expect((await ws(t, paid.id)).status).toBe("active");
  });
});

describe("a paid period that ends", () => {
  for (const policy of ["free", "pause"] as const) {
    test(`turns past_due (plan kept), then after the grace follows policy ${policy}`, async () => {
      t = await createTestApp({ config: { trialEndPolicy: policy } });
      const w = await createWorkspace(t, { planId: "pro", status: "active" });
      const end = addMonths(t.clock.now().getTime(), 1);
      await t.deps.db.prepare("UPDATE workspaces SET current_period_end = ?, billing_interval = 'monthly' WHERE id = ?").run(end, w.id);
      t.clock.set(end);
      await lifecycle(t).run();
      expect(await ws(t, w.id)).toMatchObject({ planId: "pro", status: "past_due" });
      expect((await effectiveLimits(t.deps, w.id)).sessions).toBe(10);
      expect(await codeOf(() => assertCanSend(t.deps, w.id))).toBeNull();
      t.clock.set(end + PAST_DUE_GRACE_MS - 1);
      await lifecycle(t).run();
      expect((await ws(t, w.id)).status).toBe("past_due");
      t.clock.set(end + PAST_DUE_GRACE_MS);
      await lifecycle(t).run();
      expect(await ws(t, w.id)).toMatchObject({ planId: "free", status: policy === "free" ? "free" : "paused" });
    });
  }
});

describe("addMonths", () => {
  test("calendar months in UTC, clamped to the month's last day", () => {
    expect(new Date(addMonths(Date.UTC(2026, 0, 31, 10), 1)).toISOString()).toBe("2026-02-28T10:00:00.000Z");
    expect(new Date(addMonths(Date.UTC(2028, 0, 31), 1)).toISOString()).toBe("2028-02-29T00:00:00.000Z");
    expect(new Date(addMonths(Date.UTC(2026, 4, 15, 8, 30), 12)).toISOString()).toBe("2027-05-15T08:30:00.000Z");
    expect(new Date(addMonths(Date.UTC(2026, 11, 1), 1)).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });
});
