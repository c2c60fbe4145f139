import { afterEach, expect, test } from "bun:test";
import { NetworkError, type OutboundMessage } from "../../../src/network/driver.ts";
import { SimDriver } from "../../../src/network/sim/driver.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, recordEvents, statusOf } from "./helpers.ts";

/** A network whose next sends throw what the test says (a driver bug, or a declared refusal). */
class ThrowingSim extends SimDriver {
  next: Error[] = [];
  readonly calls: OutboundMessage[] = [];
  override async send(sessionId: string, message: OutboundMessage): Promise<{ networkMessageId: string }> {
    this.calls.push(message);
    const err = this.next.shift();
    if (err) throw err;
    return super.send(sessionId, message);
  }
}

let t: TestApp;
afterEach(() => t.close());

async function setup() {
  const sim = new ThrowingSim({ latencyMs: 1 });
  t = await createTestApp({ simDriver: sim, config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  const ws = await createWorkspace(t);
  const session = await connectedSession(t, ws);
  const send = async (body: string) => {
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to: "919876543210", body } });
    expect(r.status).toBe(202);
    return r.body.data.id as string;
  };
  return { sim, send };
}

test("an unexpected error while sending is retried, not failed at once", async () => {
  const { sim, send } = await setup();
  const events = recordEvents(t);
  sim.next = [new TypeError("cannot read properties of undefined")];
  const id = await send("hiccup");
  await drain(t);
  const row = await t.deps.db.prepare("SELECT status, attempts, error_code AS code FROM messages WHERE id = ?").get(id);
  expect(row).toEqual({ status: "queued", attempts: 1, code: "internal_error" });
  for (let i = 0; i < 5 && (await statusOf(t, id)) !== "sent"; i++) {
    t.clock.advance(60_000);
    await drain(t);
  }
  expect((await statusOf(t, id))).toBe("sent");
  expect(sim.calls.filter((m) => m.text === "hiccup")).toHaveLength(2);
  expect(events.filter((e) => e.event === "message_failed")).toEqual([]);
});

test("an error the network declares permanent still fails at once", async () => {
  const { sim, send } = await setup();
  sim.next = [new NetworkError("not on the network", false, "recipient_invalid")];
  const id = await send("nobody");
  await drain(t);
  const row = await t.deps.db.prepare("SELECT status, attempts, error_code AS code FROM messages WHERE id = ?").get(id);
  expect(row).toMatchObject({ status: "failed", code: "recipient_invalid" });
  expect(sim.calls).toHaveLength(1);
});
