import { afterAll, beforeAll, expect, test } from "bun:test";
import { SimDriver } from "../../../src/network/sim/driver.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { eventually, linkSession, newSession, recordEvents } from "./helpers.ts";

// DELETE unlinks a live session on the network (an await) before the row goes. Requests that
// arrive in that gap must not start anything on the session: it answers 404 from the start.

/** A sim network whose logout takes 100 ms, so the gap is wide open. */
class SlowLogoutSim extends SimDriver {
  private enter!: () => void;
  /** resolves when the first disconnect has begun */
  readonly entered = new Promise<void>((r) => (this.enter = r));
  override async disconnect(sessionId: string, opts: { logout: boolean }): Promise<void> {
    this.enter();
    await Bun.sleep(100);
    return super.disconnect(sessionId, opts);
  }
}

let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  // network steps take 50 ms: a connect is still waiting for its first QR when a DELETE comes
  t = await createTestApp({ simDriver: new SlowLogoutSim({ latencyMs: 50 }) });
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

test("while a DELETE waits for the network logout, connect, disconnect, QR and pairing code answer 404; nothing stays live", async () => {
  const sim = t.sim as SlowLogoutSim;
  const id = await newSession(t, ws);
  await linkSession(t, ws, id);
  const events = recordEvents(t);
  const as = { token: ws.owner.token };

  const deleting = t.request("DELETE", `/api/v1/chatapp/${id}`, as);
  await sim.entered;
  const inTheGap = await Promise.all([
    t.request("POST", `/api/v1/chatapp/${id}/connect`, as),
    t.request("POST", `/api/v1/chatapp/${id}/disconnect`, as),
    t.request("GET", `/api/v1/chatapp/${id}/qr`, as),
    t.request("POST", `/api/v1/chatapp/${id}/pairing-code`, { ...as, body: { phoneNumber: "919812345678" } }),
    t.request("DELETE", `/api/v1/chatapp/${id}`, as),
  ]);
  expect(inTheGap.map((r) => [r.status, r.body.code])).toEqual(Array(5).fill([404, "NOT_FOUND"]));

  expect((await deleting).status).toBe(200);
  expect((await t.request("GET", `/api/v1/chatapp/${id}`, as)).status).toBe(404);
  // no pairing was started for the vanished row: the network knows nothing of it
  await Bun.sleep(20);
  expect(sim.stateOf(id)).toBeUndefined();
  expect(t.services.sessions.isLive(id)).toBe(false);
  expect(events.filter((e) => e.data.sessionId === id).map((e) => e.event)).toEqual(["session_disconnected", "session_status"]);
});

test("a connect already waiting for its first QR when the DELETE comes answers 404 and leaves nothing on the network", async () => {
  const sim = t.sim as SlowLogoutSim;
  const id = await newSession(t, ws);
  const as = { token: ws.owner.token };
  const connecting = t.request("POST", `/api/v1/chatapp/${id}/connect`, as);
  await eventually(() => expect(t.services.sessions.isLive(id)).toBe(true));
  const deleted = await t.request("DELETE", `/api/v1/chatapp/${id}`, as);
  expect(deleted.status).toBe(200);
  const c = await connecting;
  expect([c.status, c.body.code]).toEqual([404, "NOT_FOUND"]);
  await Bun.sleep(100); // past the sim's first QR, had the pairing survived
  expect(sim.stateOf(id)).toBeUndefined();
  expect(t.services.sessions.isLive(id)).toBe(false);
});
