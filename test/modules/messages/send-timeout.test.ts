import { afterEach, expect, test } from "bun:test";
import type { OutboundMessage } from "../../../src/network/driver.ts";
import { SimDriver } from "../../../src/network/sim/driver.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, recordEvents, statusOf } from "./helpers.ts";

/** A network whose next sends never answer (a stalled socket). */
class StallingSim extends SimDriver {
  stallNext = 0;
  readonly calls: OutboundMessage[] = [];
  override async send(sessionId: string, message: OutboundMessage): Promise<{ networkMessageId: string }> {
    this.calls.push(message);
    if (this.stallNext > 0) {
      this.stallNext--;
      return new Promise(() => {});
    }
    return super.send(sessionId, message);
  }
}

let t: TestApp;
afterEach(() => t.close());

test("a send that never answers times out as a transient failure; the retry carries the same client id and the queue moves on", async () => {
  const sim = new StallingSim({ latencyMs: 1 });
  t = await createTestApp({ simDriver: sim, config: { sendMinGapMs: 0, sendJitterMs: 0, sendTimeoutMs: 30 } });
  const ws: TestWorkspace = await createWorkspace(t);
  const session = await connectedSession(t, ws);
  const events = recordEvents(t);
  const send = async (body: string) => {
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to: "919876543210", body } });
    expect(r.status).toBe(202);
    return r.body.data.id as string;
  };
  const first = await send("stalls once");
  const second = await send("behind it");
  sim.stallNext = 1;
  await drain(t);
  const row = await t.deps.db.prepare("SELECT status, attempts, error_code AS code, sending_token AS token FROM messages WHERE id = ?").get(first);
  expect(row).toEqual({ status: "queued", attempts: 1, code: "send_timeout", token: null });
  expect((await statusOf(t, second))).toBe("queued");

  for (let i = 0; i < 5 && (await statusOf(t, second)) !== "sent"; i++) {
    t.clock.advance(60_000);
    await drain(t);
  }
  expect([(await statusOf(t, first)), (await statusOf(t, second))]).toEqual(["sent", "sent"]);
  const tries = sim.calls.filter((m) => m.text === "stalls once");
  expect(tries.length).toBe(2);
  expect(tries[1]!.clientMessageId).toBe(tries[0]!.clientMessageId!);
  expect(sim.sent.map((s) => s.message.text)).toEqual(["stalls once", "behind it"]);
  expect(events.filter((e) => e.event === "message_failed")).toEqual([]);
});
