// The contacts quota across connections: 5 workers on the same database file create 50
// contacts in parallel at the limit minus one; exactly one is created.
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../../src/clock.ts";
import { loadConfig } from "../../../src/config.ts";
import { silentLogger } from "../../../src/log.ts";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { SimDriver } from "../../../src/network/sim/driver.ts";
import { createRuntime } from "../../../src/runtime.ts";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";

test("50 parallel creates from 5 connections at the contacts limit minus one: exactly one succeeds", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-contacts-race-"));
  const clock = new ManualClock(Date.now());
  const rt = await createRuntime(loadConfig({ dataDir, network: "sim", logLevel: "silent" }), silentLogger, {
    clock,
    network: new SimDriver(),
    secrets: { jwtSecret: "s".repeat(48), credentialKey: "00".repeat(32) },
  });
  await upsertPlan(rt.deps.db, "c10", { name: "C10", monthlyPaise: 1, annualPaise: 10, limits: { contacts: 10 } }, 0);
  const w = await createWorkspace({ ...rt, clock } as unknown as TestApp, { status: "active", planId: "c10" });
  for (let i = 0; i < 9; i++) await rt.deps.db.prepare("INSERT INTO contacts (id, workspace_id, phone, created_at, updated_at) VALUES (?, ?, ?, 0, 0)").run(Bun.randomUUIDv7(), w.id, `9198000000${i}0`);
  const url = new URL("./quota-worker.ts", import.meta.url).href;
  const batches = await Promise.all(
    Array.from({ length: 5 }, (_, k) => {
      const worker = new Worker(url);
      const phones = Array.from({ length: 10 }, (_, i) => `91985${k}${String(i).padStart(6, "0")}`);
      return new Promise<string[]>((resolve, reject) => {
        worker.onmessage = (e) => {
          resolve(e.data);
          worker.terminate();
        };
        worker.onerror = (e) => reject(e);
        worker.postMessage({ dbPath: join(dataDir, "parley.db"), workspaceId: w.id, now: clock.now().getTime(), phones });
      });
    }),
  );
  const results = batches.flat();
  expect(results.filter((r) => r === "ok")).toHaveLength(1);
  expect(results.filter((r) => r === "LIMIT_EXCEEDED")).toHaveLength(49);
  expect((await rt.deps.db.prepare("SELECT count(*) AS n FROM contacts WHERE workspace_id = ?").get(w.id) as { n: number }).n).toBe(10);
  await rt.close();
});
