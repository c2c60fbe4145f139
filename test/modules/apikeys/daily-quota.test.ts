import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { flushApiKeyUsage } from "../../../src/modules/apikeys/jobs.ts";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { readCounter } from "../../../src/modules/billing/usage.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { createApiKey } from "../messages/helpers.ts";
import { guardApp } from "./guard-app.ts";
import { testEngine } from "../../helpers/postgres.ts";



let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { rateLimitPerMinute: 100_000 } });
  await upsertPlan(t.deps.db, "api10", { name: "API 10", monthlyPaise: 1, annualPaise: 10, limits: { apiRequestsPerDay: 10 } }, 0);
});
afterAll(() => t.close());

const used = async (token: string) => (await t.request("GET", "/api/billing/subscription", { token })).body.data.usage.apiRequestsPerDay.used;

describe("the daily API-request quota, counted in memory and written in batches", () => {
  test("50 parallel requests at the limit minus one: exactly one passes, and the count is exact before and after it is written", async () => {
    const w = await createWorkspace(t, { status: "active", planId: "api10" });
    const key = await createApiKey(t, w);
    const call = guardApp(t);
    for (let i = 0; i < 9; i++) expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 50 }, () => call("GET", "/api/external/probe", { apiKey: key })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 403 && r.body.code === "LIMIT_EXCEEDED")).toHaveLength(49);
    expect(await used(w.owner.token)).toBe(10); // unwritten counts are included
    await flushApiKeyUsage(t.deps);
    expect(await readCounter(t.deps.db, w.id, "apiRequestsPerDay", t.clock.now())).toBe(10);
    expect(await used(w.owner.token)).toBe(10);
    expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(403);
  });

  test("a limit raised while counts wait in memory applies at once; a new UTC day starts from zero", async () => {
    const w = await createWorkspace(t, { status: "active", planId: "api10" });
    const key = await createApiKey(t, w);
    const call = guardApp(t);
    for (let i = 0; i < 10; i++) expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(200);
    expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(403);
    await upsertPlan(t.deps.db, "api12", { name: "API 12", monthlyPaise: 1, annualPaise: 10, limits: { apiRequestsPerDay: 12 } }, 0);
    await t.deps.db.prepare("UPDATE workspaces SET plan_id = 'api12' WHERE id = ?").run(w.id);
    expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(200);
    expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(200);
    expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(403);
    const saved = t.clock.now().getTime();
    try {
      t.clock.advance(86_400_000);
      expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(200);
      await flushApiKeyUsage(t.deps);
      expect(await readCounter(t.deps.db, w.id, "apiRequestsPerDay", t.clock.now())).toBe(1);
    } finally {
      t.clock.set(saved);
    }
    expect(await readCounter(t.deps.db, w.id, "apiRequestsPerDay", t.clock.now())).toBe(12);
  });

  test.skipIf(testEngine !== "postgres")("PostgreSQL only (SQLite counts in memory): far from the limit a node takes a block of the day's quota in one statement; the usage shown counts only the requests made; a stopping node gives its unspent units back", async () => {
    await upsertPlan(t.deps.db, "api1000", { name: "API 1000", monthlyPaise: 1, annualPaise: 10, limits: { apiRequestsPerDay: 1000 } }, 0);
    await upsertPlan(t.deps.db, "api50", { name: "API 50", monthlyPaise: 1, annualPaise: 10, limits: { apiRequestsPerDay: 50 } }, 0);
    const w = await createWorkspace(t, { status: "active", planId: "api1000" });
    const key = await createApiKey(t, w);
    const call = guardApp(t);
    for (let i = 0; i < 10; i++) expect((await call("GET", "/api/external/probe", { apiKey: key })).status).toBe(200);
    expect(await readCounter(t.deps.db, w.id, "apiRequestsPerDay", t.clock.now())).toBe(93); // one block: (1000 - 250) / 8
    expect(await used(w.owner.token)).toBe(10);
    // a unit of the block at hand is taken at once, without a promise; the row stays as it was
    const counted = await readCounter(t.deps.db, w.id, "apiRequestsPerDay", t.clock.now());
    const taken = t.deps.apiQuota.take(w.id, t.clock.now(), 1000);
    expect(taken).toBe(11);
    expect(await readCounter(t.deps.db, w.id, "apiRequestsPerDay", t.clock.now())).toBe(counted);
    // the periodic flush keeps the block; the node stopping gives its unspent units back, and
    // the row then counts the requests made
    await flushApiKeyUsage(t.deps, false);
    expect(await readCounter(t.deps.db, w.id, "apiRequestsPerDay", t.clock.now())).toBe(counted);
    await flushApiKeyUsage(t.deps);
    expect(await readCounter(t.deps.db, w.id, "apiRequestsPerDay", t.clock.now())).toBe(11);
    expect(await used(w.owner.token)).toBe(11);
  });

  /** A workspace on a plan of 1,000 API requests a day that made `made` of them, and the step that lowers its plan to `lowered`. */
  async function madeThenLowered(made: number, lowered: number) {
    await upsertPlan(t.deps.db, "api1000", { name: "API 1000", monthlyPaise: 1, annualPaise: 10, limits: { apiRequestsPerDay: 1000 } }, 0);
    await upsertPlan(t.deps.db, `api${lowered}`, { name: `API ${lowered}`, monthlyPaise: 1, annualPaise: 10, limits: { apiRequestsPerDay: lowered } }, 0);
    const w = await createWorkspace(t, { status: "active", planId: "api1000" });
    const key = await createApiKey(t, w);
    const call = guardApp(t);
    const probe = () => call("GET", "/api/external/probe", { apiKey: key });
    for (let i = 0; i < made; i++) expect((await probe()).status).toBe(200);
    await t.deps.db.prepare("UPDATE workspaces SET plan_id = ? WHERE id = ?").run(`api${lowered}`, w.id);
    return { w, probe };
  }

  test("a limit lowered mid-day below what the day's row counts lets in exactly the lowered limit's requests, as on SQLite (the node's unspent units go back to the row); the row is exact after the final flush", async () => {
    const { w, probe } = await madeThenLowered(11, 50);
    let passed = 0;
    for (let i = 0; i < 60; i++) if ((await probe()).status === 200) passed++;
    expect(passed).toBe(39);
    expect(await used(w.owner.token)).toBe(50);
    await flushApiKeyUsage(t.deps);
    expect(await readCounter(t.deps.db, w.id, "apiRequestsPerDay", t.clock.now())).toBe(50);
    // in parallel at the lowered limit: none passes
    const results = await Promise.all(Array.from({ length: 20 }, probe));
    expect(results.filter((r) => r.status === 200)).toHaveLength(0);
  });

  test("a lowered limit raced by 50 parallel requests while the node holds a block: exactly the lowered limit's requests pass", async () => {
    const { w, probe } = await madeThenLowered(5, 20);
    const results = await Promise.all(Array.from({ length: 50 }, probe));
    expect(results.filter((r) => r.status === 200)).toHaveLength(15);
    expect(results.filter((r) => r.status === 403 && r.body.code === "LIMIT_EXCEEDED")).toHaveLength(35);
    await flushApiKeyUsage(t.deps);
    expect(await readCounter(t.deps.db, w.id, "apiRequestsPerDay", t.clock.now())).toBe(20);
  });
});
