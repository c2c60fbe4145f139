import { afterEach, expect, test } from "bun:test";
import { DEFAULT_PLANS, seedPlans } from "../../../src/modules/billing/plans.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";

let t: TestApp;
afterEach(() => t?.close());

const plans = async () =>
  (await t.deps.db.prepare<{ id: string; name: string }>("SELECT id, name FROM plans ORDER BY sort_order").all()).map((r) => `${r.id}:${r.name}`);

test("the plan catalogue is seeded once: a missing built-in plan comes back, an operator's edit is kept", async () => {
  t = await createTestApp();
  const seeded = await plans();
  expect(seeded.map((p) => p.split(":")[0])).toEqual(DEFAULT_PLANS.map((p) => p.id));
  // every built-in plan there: nothing written (an edit stays as it is)
  await t.deps.db.prepare("UPDATE plans SET name = ? WHERE id = ?").run("Renamed", DEFAULT_PLANS[0]!.id);
  await seedPlans(t.deps.db, Date.now());
  expect(await plans()).toEqual([`${DEFAULT_PLANS[0]!.id}:Renamed`, ...seeded.slice(1)]);
  // one missing: it is inserted again, the edited one kept
  await t.deps.db.prepare("DELETE FROM plans WHERE id = ?").run(DEFAULT_PLANS[1]!.id);
  await seedPlans(t.deps.db, Date.now());
  expect(await plans()).toEqual([`${DEFAULT_PLANS[0]!.id}:Renamed`, ...seeded.slice(1)]);
});
