import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config.ts";
import { silentLogger } from "../../../src/log.ts";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { assertQuota, consumeQuota, effectiveLimits } from "../../../src/modules/billing/quota.ts";
import { QUOTA_RESOURCES, readCounter } from "../../../src/modules/billing/usage.ts";
import { createRuntime } from "../../../src/runtime.ts";
import { SimDriver } from "../../../src/network/sim/driver.ts";
import { ManualClock } from "../../../src/clock.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { guardApp } from "../apikeys/guard-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const codeOf = async (fn: () => unknown) => {
  try {
    await fn();
    return null;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe("limits in force", () => {
  test("trial = Growth; active and past_due = their plan; free, paused, cancelled = Free", async () => {
    const cases: [string, string, number][] = [
      ["trialing", "growth", 3],
      ["active", "starter", 1],
      ["active", "pro", 10],
      ["past_due", "pro", 10],
      ["free", "pro", 1],
      ["paused", "pro", 1],
      ["cancelled", "pro", 1],
    ];
    for (const [status, planId, sessions] of cases) {
      const w = await createWorkspace(t, { status, planId });
      expect((await effectiveLimits(t.deps, w.id)).sessions).toBe(sessions);
    }
  });

  test("the operator's catalogue changes apply at once", async () => {
    await upsertPlan(t.deps.db, "custom", { name: "Custom", monthlyPaise: 1, annualPaise: 10, limits: { sessions: 42 } }, 0);
    const w = await createWorkspace(t, { status: "active", planId: "custom" });
    expect(await effectiveLimits(t.deps, w.id)).toMatchObject({ sessions: 42, teamSeats: 1 }); // unset limits: Free's
    await upsertPlan(t.deps.db, "custom", { limits: { sessions: 7 } }, 0);
    expect((await effectiveLimits(t.deps, w.id)).sessions).toBe(7);
  });

  test("an unknown workspace is 404", async () => {
    expect(await codeOf(() => effectiveLimits(t.deps, Bun.randomUUIDv7()))).toBe("NOT_FOUND");
  });
});

describe("each limit answers 403 LIMIT_EXCEEDED", () => {
  test("assertQuota for every resource of every default plan, at and past the limit", async () => {
    for (const planId of ["free", "starter", "growth", "pro"]) {
      const w = await createWorkspace(t, { status: planId === "free" ? "free" : "active", planId });
      const limits = await effectiveLimits(t.deps, w.id);
      for (const r of QUOTA_RESOURCES) {
        expect(await codeOf(() => assertQuota(t.deps, w.id, r, limits[r] - 1))).toBeNull();
        expect(await codeOf(() => assertQuota(t.deps, w.id, r, limits[r]))).toBe("LIMIT_EXCEEDED");
        expect(await codeOf(() => assertQuota(t.deps, w.id, r, limits[r] - 1, 2))).toBe("LIMIT_EXCEEDED");
      }
    }
  });

  test("messages a month: consumeQuota counts to the limit, then refuses; a new UTC month starts at zero", async () => {
    await upsertPlan(t.deps.db, "tiny", { name: "Tiny", monthlyPaise: 1, annualPaise: 10, limits: { messagesPerMonth: 3 } }, 0);
    const w = await createWorkspace(t, { status: "active", planId: "tiny" });
    const saved = t.clock.now().getTime();
    t.clock.set(Date.UTC(2026, 2, 31, 23, 59));
    try {
      const counted: number[] = [];
      for (let i = 0; i < 3; i++) counted.push(await consumeQuota(t.deps, w.id, "messagesPerMonth"));
      expect(counted).toEqual([1, 2, 3]);
      expect(await codeOf(() => consumeQuota(t.deps, w.id, "messagesPerMonth"))).toBe("LIMIT_EXCEEDED");
      expect(await readCounter(t.deps.db, w.id, "messagesPerMonth", t.clock.now())).toBe(3); // refused: not counted
      t.clock.advance(60_000); // 1 April, UTC
      expect(await consumeQuota(t.deps, w.id, "messagesPerMonth", 3)).toBe(3);
      expect(await codeOf(() => consumeQuota(t.deps, w.id, "messagesPerMonth"))).toBe("LIMIT_EXCEEDED");
    } finally {
      t.clock.set(saved);
    }
  });

  test("a consumed unit rolls back with the transaction that paid for it", async () => {
    const w = await createWorkspace(t);
    await expect(
      t.deps.db.tx(async () => {
        await consumeQuota(t.deps, w.id, "messagesPerMonth");
        throw new Error("send failed");
      }),
    ).rejects.toThrow("send failed");
    expect(await readCounter(t.deps.db, w.id, "messagesPerMonth", t.clock.now())).toBe(0);
  });

  test("API requests a day: API-key requests count per workspace and UTC day, then 403 LIMIT_EXCEEDED", async () => {
    await upsertPlan(t.deps.db, "api3", { name: "API 3", monthlyPaise: 1, annualPaise: 10, limits: { apiRequestsPerDay: 3 } }, 0);
    const w = await createWorkspace(t, { status: "active", planId: "api3" });
    const call = guardApp(t);
    const k1 = (await t.request("POST", "/api/api-keys", { token: w.owner.token, body: { name: "a" } })).body.data.key;
    const k2 = (await t.request("POST", "/api/api-keys", { token: w.owner.token, body: { name: "b" } })).body.data.key;
    expect((await call("GET", "/api/external/probe", { apiKey: k1 })).status).toBe(200);
    expect((await call("GET", "/api/external/probe", { apiKey: k2 })).status).toBe(200);
    expect((await call("GET", "/api/external/probe", { apiKey: k1 })).status).toBe(200);
    const over = await call("GET", "/api/external/probe", { apiKey: k2 });
    expect(over.status).toBe(403);
    expect(over.body.code).toBe("LIMIT_EXCEEDED");
    // dashboard (JWT) requests are not API requests
    expect((await t.request("GET", "/api/workspace", { token: w.owner.token })).status).toBe(200);
    const sub = await t.request("GET", "/api/billing/subscription", { token: w.owner.token });
    expect(sub.body.data.usage.apiRequestsPerDay).toEqual({ used: 3, limit: 3 });
  });
});

describe("the daily API counter survives a restart", () => {
  test("counted in rows of the data dir's database", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "parley-quota-"));
    const config = loadConfig({ dataDir, network: "sim", logLevel: "silent" });
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const secrets = { jwtSecret: "s".repeat(48), credentialKey: "00".repeat(32) };
    const first = await createRuntime(config, silentLogger, { clock, network: new SimDriver(), secrets });
    const fakeApp = { ...first, clock, sim: new SimDriver(), request: async () => ({}) as any } as unknown as TestApp;
    const w = await createWorkspace(fakeApp, { status: "active", planId: "starter" });
    for (let i = 0; i < 4; i++) await consumeQuota(first.deps, w.id, "apiRequestsPerDay");
    await first.close();
    const second = await createRuntime(config, silentLogger, { clock, network: new SimDriver(), secrets });
    expect(await readCounter(second.deps.db, w.id, "apiRequestsPerDay", clock.now())).toBe(4);
    expect(await consumeQuota(second.deps, w.id, "apiRequestsPerDay")).toBe(5);
    await second.close();
  });
});

describe("races across connections", () => {
  async function race(op: "consume" | "invite", dbPath: string, workspaceId: string, now: number, workers: number, perWorker: number): Promise<string[]> {
    const url = new URL("./quota-worker.ts", import.meta.url).href;
    const batches = await Promise.all(
      Array.from({ length: workers }, (_, w) => {
        const worker = new Worker(url);
        const items = Array.from({ length: perWorker }, (_, i) => `race-${w}-${i}-${Bun.randomUUIDv7().slice(-6)}@example.com`);
        return new Promise<string[]>((resolve, reject) => {
          worker.onmessage = (e) => {
            resolve(e.data);
            worker.terminate();
          };
          worker.onerror = (e) => reject(e);
          worker.postMessage({ dbPath, op, workspaceId, now, items });
        });
      }),
    );
    return batches.flat();
  }

  /** A runtime on a database file (workers open the same file). */
  async function fileRuntime() {
    const dataDir = mkdtempSync(join(tmpdir(), "parley-race-"));
    const config = loadConfig({ dataDir, network: "sim", logLevel: "silent" });
    const clock = new ManualClock(Date.now());
    const rt = await createRuntime(config, silentLogger, { clock, network: new SimDriver(), secrets: { jwtSecret: "s".repeat(48), credentialKey: "00".repeat(32) } });
    return { rt, clock, dbPath: join(dataDir, "parley.db"), app: { ...rt, clock } as unknown as TestApp };
  }

  test("50 parallel invitations from 5 connections at the seat limit minus one: exactly one succeeds", async () => {
    const { rt, clock, dbPath, app } = await fileRuntime();
    const w = await createWorkspace(app, { status: "active", planId: "growth" }); // 5 seats
    for (let i = 0; i < 3; i++) await w.member("agent");
    const results = await race("invite", dbPath, w.id, clock.now().getTime(), 5, 10);
    expect(results.filter((r) => r === "ok")).toHaveLength(1);
    expect(results.filter((r) => r === "LIMIT_EXCEEDED")).toHaveLength(49);
    expect((await rt.deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM invitations WHERE workspace_id = ?").get(w.id))!.n).toBe(1);
    await rt.close();
  });

  test("messages counted from 4 connections never pass the limit", async () => {
    const { rt, clock, dbPath, app } = await fileRuntime();
    await upsertPlan(rt.deps.db, "m100", { name: "M100", monthlyPaise: 1, annualPaise: 10, limits: { messagesPerMonth: 100 } }, 0);
    const w = await createWorkspace(app, { status: "active", planId: "m100" });
    const results = await race("consume", dbPath, w.id, clock.now().getTime(), 4, 40);
    expect(results.filter((r) => r === "ok")).toHaveLength(100);
    expect(results.filter((r) => r === "LIMIT_EXCEEDED")).toHaveLength(60);
    expect(await readCounter(rt.deps.db, w.id, "messagesPerMonth", clock.now())).toBe(100);
    await rt.close();
  });
});
