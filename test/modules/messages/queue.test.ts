import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { clientMessageId } from "../../../src/modules/messages/sender.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { linkSession, newSession } from "../sessions/helpers.ts";
import { connectedSession, drain, ISO_MS, recordEvents, statusOf } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string; phone: string };
const setup = async (config: Record<string, unknown> = {}) => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, ...config } });
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
};
afterEach(() => t.close());

const send = async (body: string, to = "919876543210") => {
  const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to, body } });
  expect(r.status).toBe(202);
  return r.body.data.id as string;
};
const wireCount = (text: string) => t.sim.sent.filter((s) => s.message.text === text).length;

describe("transient failures", () => {
  beforeEach(() => setup({ sendMaxAttempts: 4 }));

  test("are retried with backoff until the network accepts", async () => {
    const events = recordEvents(t);
    t.sim.failNextSends(session.id, 2, "rate_limited");
    const id = await send("retry me");
    await drain(t);
    expect((await statusOf(t, id))).toBe("queued");
    expect(wireCount("retry me")).toBe(0);
    for (let i = 0; i < 3 && (await statusOf(t, id)) === "queued"; i++) {
      t.clock.advance(60_000);
      await drain(t);
    }
    expect((await statusOf(t, id))).toBe("sent");
    expect(wireCount("retry me")).toBe(1);
    const row = await t.deps.db.prepare("SELECT attempts FROM messages WHERE id = ?").get(id) as { attempts: number };
    expect(row.attempts).toBe(3);
    expect(events.filter((e) => e.event === "message_failed")).toEqual([]);
    expect(events.filter((e) => e.event === "message_sent").length).toBe(1);
  });

  test("fail the message after the attempt cap with message_failed", async () => {
    const events = recordEvents(t);
    t.sim.failNextSends(session.id, 100, "send_failed");
    const id = await send("doomed", "919811122233");
    for (let i = 0; i < 10 && (await statusOf(t, id)) === "queued"; i++) {
      await drain(t);
      t.clock.advance(3600_000);
    }
    expect((await statusOf(t, id))).toBe("failed");
    const failed = events.filter((e) => e.event === "message_failed");
    expect(failed.length).toBe(1);
    expect(failed[0]!.data).toEqual({
      sessionId: session.id,
      messageId: id,
      to: "919811122233",
      error: { code: "send_failed", message: "simulated failure: send_failed" },
    });
    // hours passed: a fresh access token
    const token = await accessToken(t, ws.owner.userId, ws.id, "owner");
    const got = (await t.request("GET", `/api/v1/messages/${id}`, { token })).body.data;
    expect(got.status).toBe("failed");
    expect(got.attempts).toBe(4);
    expect(got.error).toEqual({ code: "send_failed", message: "simulated failure: send_failed" });
    expect(got.failedAt).toMatch(ISO_MS);
  });

  test("a failed head does not block the messages behind it", async () => {
    t.sim.failNextSends(session.id, 4);
    const a = await send("first, fails");
    const b = await send("second, goes");
    for (let i = 0; i < 10 && (await statusOf(t, b)) !== "sent"; i++) {
      await drain(t);
      t.clock.advance(3600_000);
    }
    expect((await statusOf(t, a))).toBe("failed");
    expect((await statusOf(t, b))).toBe("sent");
  });
});

describe("pacing", () => {
  beforeEach(() => setup({ sendMinGapMs: 1000, sendJitterMs: 0 }));

  test("a session sends at most one message per minimum gap", async () => {
    for (let i = 0; i < 3; i++) await send(`paced ${i}`);
    await drain(t);
    expect(t.sim.sent.length).toBe(1);
    t.clock.advance(999);
    await drain(t);
    expect(t.sim.sent.length).toBe(1);
    t.clock.advance(1);
    await drain(t);
    expect(t.sim.sent.length).toBe(2);
    t.clock.advance(1000);
    await drain(t);
    expect(t.sim.sent.map((s) => s.message.text)).toEqual(["paced 0", "paced 1", "paced 2"]);
  });

  test("two sessions are paced independently", async () => {
    const second = await connectedSession(t, ws);
    await send("s1 a");
    await send("s1 b");
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: second.id, to: "919876543210", body: "s2 a" } });
    expect(r.status).toBe(202);
    await drain(t);
    expect(t.sim.sent.map((s) => s.message.text).sort()).toEqual(["s1 a", "s2 a"]);
  });
});

describe("exactly once across an interrupted attempt", () => {
  beforeEach(() => setup());

  test("an attempt cut short after the network accepted is resent with the same client id and not delivered twice", async () => {
    const events = recordEvents(t);
    const id = await send("accepted, then crash");
    // what a crash between the network's acceptance and recording it leaves behind:
    // the network has the message, the row is still queued with an attempt token
    const accepted = await t.sim.send(session.id, { to: "919876543210", type: "text", text: "accepted, then crash", clientMessageId: clientMessageId(id) });
    await t.deps.db.prepare("UPDATE messages SET sending_token = 'crashed-attempt', attempts = 1 WHERE id = ?").run(id);
    await drain(t);
    expect(wireCount("accepted, then crash")).toBe(1);
    const row = await t.deps.db.prepare("SELECT status, network_message_id AS n, sending_token AS tok FROM messages WHERE id = ?").get(id) as { status: string; n: string; tok: string | null };
    expect(row).toEqual({ status: "sent", n: accepted.networkMessageId, tok: null });
    expect(events.filter((e) => e.event === "message_sent").length).toBe(1);
  });

  test("an attempt cut short before the network saw it is sent once", async () => {
    const id = await send("crash before send");
    await t.deps.db.prepare("UPDATE messages SET sending_token = 'crashed-attempt', attempts = 1 WHERE id = ?").run(id);
    await drain(t);
    expect(wireCount("crash before send")).toBe(1);
    expect((await statusOf(t, id))).toBe("sent");
  });

  test("the restart sweep gives every session with queued messages a sender", async () => {
    // a session linked through the sessions module, so the restart's restore finds its stored link
    session = { id: await newSession(t, ws), phone: "919811100009" };
    await linkSession(t, ws, session.id, session.phone);
    const id = await send("left queued");
    // the job is lost (as if enqueued by a process that died mid-commit of another change)
    await t.deps.db.prepare("DELETE FROM jobs").run();
    await drain(t);
    expect((await statusOf(t, id))).toBe("queued");
    await t.services.start();
    await drain(t);
    expect((await statusOf(t, id))).toBe("sent");
  });
});
