import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, recordEvents, statusOf } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string; phone: string };
beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
});
afterAll(() => t.close());

/** Sends a message through to `sent` and returns its ids. */
async function sentMessage(text: string): Promise<{ id: string; networkId: string }> {
  const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to: "919876543210", body: text } });
  await drain(t);
  const wire = t.sim.sent.find((s) => s.message.text === text)!;
  return { id: r.body.data.id, networkId: wire.networkMessageId };
}
const times = async (id: string) =>
  (await t.deps.db.prepare("SELECT delivered_at AS d, read_at AS r FROM messages WHERE id = ?").get(id)) as { d: number | null; r: number | null };
/** Receipts are applied asynchronously (each in a transaction of its own, in arrival order): waits until the ones just emitted are. */
const applied = async () => {
  await Bun.sleep(0); // the sim hands its events over in a later turn
  await t.services.settled();
};

test("read before delivered: status read, deliveredAt also set, delivered emitted once before read", async () => {
  const { id, networkId } = await sentMessage("out of order");
  const events = recordEvents(t);
  t.sim.receipt(session.id, networkId, "read");
  await applied();
  expect((await statusOf(t, id))).toBe("read");
  expect((await times(id)).d).not.toBeNull();
  t.sim.receipt(session.id, networkId, "delivered"); // late: must not move it back
  await applied();
  expect((await statusOf(t, id))).toBe("read");
  expect(events.map((e) => e.event)).toEqual(["message_delivered", "message_read"]);
  expect(events[0]!.data.deliveredAt).toBe(events[1]!.data.readAt);
});

test("duplicate receipts change nothing and emit nothing", async () => {
  const { id, networkId } = await sentMessage("duplicates");
  const events = recordEvents(t);
  t.sim.receipt(session.id, networkId, "delivered");
  await applied();
  const first = await times(id);
  t.sim.receipt(session.id, networkId, "delivered");
  await applied();
  expect(await times(id)).toEqual(first);
  t.sim.receipt(session.id, networkId, "read");
  t.sim.receipt(session.id, networkId, "read");
  t.sim.receipt(session.id, networkId, "delivered");
  await applied();
  expect((await statusOf(t, id))).toBe("read");
  expect(events.map((e) => e.event)).toEqual(["message_delivered", "message_read"]);
});

test("a receipt for an unknown message or another session is ignored", async () => {
  const { id, networkId } = await sentMessage("not yours");
  const other = await createWorkspace(t);
  const otherSession = await connectedSession(t, other);
  const events = recordEvents(t);
  t.sim.receipt(otherSession.id, networkId, "read");
  t.sim.receipt(session.id, "SIMNOSUCHMESSAGE", "read");
  await applied();
  expect((await statusOf(t, id))).toBe("sent");
  expect(events).toEqual([]);
});

test("the sim's automatic receipts take a message to read", async () => {
  const auto = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 }, sim: { autoReceipts: true, receiptDelayMs: 1 } });
  try {
    const w = await createWorkspace(auto);
    const s = await connectedSession(auto, w);
    const r = await auto.request("POST", "/api/v1/messages/send", { token: w.owner.token, body: { session_id: s.id, to: "919876543210", body: "auto" } });
    await drain(auto);
    const deadline = Date.now() + 2000;
    while ((await statusOf(auto, r.body.data.id)) !== "read" && Date.now() < deadline) await Bun.sleep(2);
    expect((await statusOf(auto, r.body.data.id))).toBe("read");
  } finally {
    await auto.close();
  }
});
