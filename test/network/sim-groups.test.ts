import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NetworkError } from "../../src/network/driver.ts";
import { SimDriver } from "../../src/network/sim/driver.ts";

async function linked(sim: SimDriver, sessionId: string, phone: string): Promise<void> {
  await sim.connect(sessionId, { credentials: null });
  for (let i = 0; i < 200 && !sim.currentQr(sessionId); i++) await Bun.sleep(2);
  sim.scan(sessionId, phone);
  for (let i = 0; i < 200 && sim.stateOf(sessionId) !== "connected"; i++) await Bun.sleep(2);
}

test("the sim network's groups: listed for their session only, sends to a group the session is not in fail, and they survive a restart", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-sim-groups-"));
  const sim = new SimDriver({ latencyMs: 1, dataDir });
  await linked(sim, "s1", "919800000001");
  await linked(sim, "s2", "919800000002");
  const g = sim.groups.create("s1", "Crew", ["919800000011", "919800000012", "919800000011"]);
  expect(g.id).toMatch(/^120363\d{12}@g\.us$/);
  expect(await sim.listGroups("s1")).toEqual([{ id: g.id, name: "Crew", participants: ["919800000011", "919800000012"] }]);
  expect(await sim.listGroups("s2")).toEqual([]);

  const sent = await sim.send("s1", { to: g.id, type: "text", text: "hello crew" });
  expect(await sim.hasSent("s1", sent.networkMessageId)).toBe(true);
  const refused = await sim.send("s2", { to: g.id, type: "text", text: "not mine" }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(NetworkError);
  expect((refused as NetworkError).code).toBe("not_in_group");
  await sim.shutdown();

  const again = new SimDriver({ latencyMs: 1, dataDir });
  expect(again.groups.list("s1")).toEqual([{ id: g.id, name: "Crew", participants: ["919800000011", "919800000012"] }]);
  await again.shutdown();
});
