import { afterEach, describe, expect, test } from "bun:test";
import type { AppEvent } from "../../../src/events/bus.ts";
import { sessionGate } from "../../../src/modules/messages/sender.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { eventually, linkSession, newSession } from "../sessions/helpers.ts";
import { connectedSession, drain, recordEvents, statusOf } from "./helpers.ts";

// A session that is away holds its queue without spending attempts; one that ended for good
// fails its whole queue at once.

let t: TestApp;
let ws: TestWorkspace;
const setup = async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, sendMaxAttempts: 3 } });
  ws = await createWorkspace(t);
};
afterEach(() => t.close());

const send = async (sessionId: string, body: string) => {
  const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: sessionId, to: "919876543210", body } });
  expect(r.status).toBe(202);
  return r.body.data.id as string;
};
const attemptsOf = async (id: string) => ((await t.deps.db.prepare("SELECT attempts FROM messages WHERE id = ?").get(id)) as { attempts: number }).attempts;
const failedEvents = (events: AppEvent[]) => events.filter((e) => e.event === "message_failed");
const sessionRow = async (id: string) => (await t.deps.db.prepare("SELECT status, last_disconnect_reason AS reason FROM chat_sessions WHERE id = ?").get(id)) as { status: string; reason: string | null };
/** The owner's token after hours of manual clock (access tokens live 15 minutes). */
const ownerToken = () => accessToken(t, ws.owner.userId, ws.id, "owner");
/** Many hours of the sender's schedule: every retry or hold delay comes due many times over. */
const hoursPass = async (n = 10) => {
  for (let i = 0; i < n; i++) {
    await drain(t);
    t.clock.advance(3_600_000);
  }
};

describe("a drop the driver reconnects from", () => {
  test("holds the queue without counting attempts while the session is disconnected (connection_lost), then sends in order", async () => {
    await setup();
    const id = await newSession(t, ws);
    await linkSession(t, ws, id, "919811100001");
    const events = recordEvents(t);
    const ids = [await send(id, "one"), await send(id, "two"), await send(id, "three")];
    t.sim.drop(id, 400); // the network comes back later than many retries would take
    await eventually(async () => expect(await sessionRow(id)).toEqual({ status: "disconnected", reason: "connection_lost" }));
    await hoursPass();
    expect((await Promise.all(ids.map((m) => statusOf(t, m))))).toEqual(["queued", "queued", "queued"]);
    expect(await Promise.all(ids.map(attemptsOf))).toEqual([0, 0, 0]);
    expect(failedEvents(events)).toEqual([]);

    await eventually(async () => expect((await sessionRow(id)).status).toBe("connected"));
    await hoursPass(3);
    expect((await Promise.all(ids.map((m) => statusOf(t, m))))).toEqual(["sent", "sent", "sent"]);
    expect(t.sim.sent.filter((s) => s.sessionId === id).map((s) => s.message.text)).toEqual(["one", "two", "three"]);
    expect(await Promise.all(ids.map(attemptsOf))).toEqual([1, 1, 1]);
  });

  test("a drop the session row has not caught up with (the network says not_connected) is held too", async () => {
    await setup();
    // the row says connected whatever the driver does (no session manager involved)
    const s = await connectedSession(t, ws);
    const events = recordEvents(t);
    const ids = [await send(s.id, "a"), await send(s.id, "b")];
    t.sim.drop(s.id, 400);
    await hoursPass();
    expect((await Promise.all(ids.map((m) => statusOf(t, m))))).toEqual(["queued", "queued"]);
    expect(await Promise.all(ids.map(attemptsOf))).toEqual([0, 0]);
    expect(failedEvents(events)).toEqual([]);
    await eventually(() => expect(t.sim.stateOf(s.id)).toBe("connected"));
    await hoursPass(3);
    expect((await Promise.all(ids.map((m) => statusOf(t, m))))).toEqual(["sent", "sent"]);
  });
});

describe("a session that ended for good", () => {
  test("logged out on the network: every queued message fails at once with session_disconnected", async () => {
    await setup();
    const id = await newSession(t, ws);
    await linkSession(t, ws, id, "919811100002");
    const events = recordEvents(t);
    const ids = [await send(id, "x"), await send(id, "y"), await send(id, "z")];
    t.sim.logout(id);
    // no sender run needed: the session's end fails the queue
    await eventually(() => expect(failedEvents(events).length).toBe(3));
    expect((await Promise.all(ids.map((m) => statusOf(t, m))))).toEqual(["failed", "failed", "failed"]);
    expect(failedEvents(events).map((e) => e.data)).toEqual(
      ids.map((messageId) => ({
        sessionId: id,
        messageId,
        to: "919876543210",
        error: { code: "session_disconnected", message: "the session was disconnected (logged_out) before the message was sent" },
      })),
    );
    await hoursPass(2);
    expect(failedEvents(events).length).toBe(3);
    expect(t.sim.sent.filter((s) => s.sessionId === id)).toEqual([]);
  });

  test("disconnected by the user while held after a drop: the held queue fails", async () => {
    await setup();
    const id = await newSession(t, ws);
    await linkSession(t, ws, id, "919811100003");
    const events = recordEvents(t);
    const m = await send(id, "held");
    t.sim.drop(id, 60_000);
    await eventually(async () => expect((await sessionRow(id)).reason).toBe("connection_lost"));
    await hoursPass(2);
    expect((await statusOf(t, m))).toBe("queued");
    const r = await t.request("POST", `/api/v1/chatapp/${id}/disconnect`, { token: await ownerToken() });
    expect(r.status).toBe(200);
    await eventually(async () => expect((await statusOf(t, m))).toBe("failed"));
    expect(failedEvents(events).map((e) => (e.data.error as { code: string }).code)).toEqual(["session_disconnected"]);
  });

  test("deleted while held: the sender fails the queue with session_deleted", async () => {
    await setup();
    const s = await connectedSession(t, ws);
    const events = recordEvents(t);
    const m = await send(s.id, "orphan");
    // what a drop whose retries gave up leaves: disconnected, not live, link kept
    await t.deps.db.prepare("UPDATE chat_sessions SET status = 'disconnected', last_disconnect_reason = 'connection_lost' WHERE id = ?").run(s.id);
    await hoursPass(2);
    expect((await statusOf(t, m))).toBe("queued");
    expect((await t.request("DELETE", `/api/v1/chatapp/${s.id}`, { token: await ownerToken() })).status).toBe(200);
    await hoursPass(1);
    expect((await statusOf(t, m))).toBe("failed");
    expect(failedEvents(events).map((e) => e.data.error)).toEqual([{ code: "session_deleted", message: "the session was deleted before the message was sent" }]);
  });
});

test("sessionGate: which session states send, hold or end the queue", () => {
  const gate = (status: string, reason: string | null) => sessionGate({ status, lastDisconnectReason: reason }).kind;
  expect(gate("connected", null)).toBe("send");
  expect(gate("qr_pending", null)).toBe("hold");
  expect(gate("disconnected", "connection_lost")).toBe("hold");
  expect(gate("disconnected", null)).toBe("hold");
  for (const reason of ["user_request", "logged_out", "banned", "replaced"]) expect(gate("disconnected", reason)).toBe("end");
  expect(sessionGate(undefined)).toEqual({ kind: "end", error: { code: "session_deleted", message: "the session was deleted before the message was sent" } });
});
