import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestMember, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, statusOf, waitFor } from "./helpers.ts";

// Scheduled sends live in the dashboard: storing one, cancelling it and queueing it at its time
// each send conversation_updated over /api/ws to every socket of the workspace (another
// member's open thread reloads), and to no socket of another workspace.

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let agent: TestMember;
let s1: { id: string; phone: string };
const MINUTE = 60_000;

interface Sock {
  sock: WebSocket;
  got: { event: string; data: Record<string, any> }[];
}
let base = "";
const open = (token: string) =>
  new Promise<Sock>((resolve, reject) => {
    const sock = new WebSocket(base + token);
    const got: Sock["got"] = [];
    sock.onmessage = (m) => {
      const msg = JSON.parse(String(m.data));
      if (msg.event === "ready") resolve({ sock, got });
      else got.push(msg);
    };
    sock.onerror = () => reject(new Error("websocket failed"));
  });
const updates = (s: Sock) => s.got.filter((m) => m.event === "conversation_updated");
const later = (ms: number) => new Date(t.clock.now().getTime() + ms).toISOString();
const thread = async (conversationId: string, token: string) =>
  (await t.request("GET", `/api/v1/inbox/conversations/${conversationId}/messages`, { token })).body.data as { id: string; status: string }[];

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  agent = await ws.member("agent");
  s1 = await connectedSession(t, ws);
  t.app.listen({ hostname: "127.0.0.1", port: 0 });
  base = `ws://127.0.0.1:${t.app.server!.port}/api/ws?token=`;
});
afterAll(async () => {
  await t.app.stop(true);
  await t.close();
});

describe("scheduled sends over /api/ws (both engines)", () => {
  test("scheduled, cancelled and queued at its time: conversation_updated reaches the workspace's other sockets, never another workspace's", async () => {
    const mine = await open(agent.token);
    const theirs = await open(other.owner.token);
    try {
      // the owner schedules; the agent's socket hears of it with the conversation
      const r = await t.request("POST", "/api/v1/messages/send", {
        token: ws.owner.token,
        body: { session_id: s1.id, type: "text", to: "919877700001", body: "See you at ten", sendAt: later(10 * MINUTE) },
      });
      expect(r.status).toBe(202);
      const id = r.body.data.id as string;
      await waitFor(() => updates(mine).length >= 1, "conversation_updated for the scheduled send");
      const conv = updates(mine)[0]!.data;
      expect(conv).toMatchObject({ phone: "919877700001", lastMessage: { id, status: "scheduled" } });
      // what the agent's thread reads on that event: the scheduled message
      expect((await thread(conv.id, agent.token)).find((m) => m.id === id)).toMatchObject({ status: "scheduled" });

      // the owner cancels: the agent hears of it, and the thread shows it cancelled
      const c = await t.request("DELETE", `/api/v1/messages/${id}`, { token: ws.owner.token });
      expect(c.status).toBe(200);
      await waitFor(() => updates(mine).length >= 2, "conversation_updated for the cancellation");
      expect(updates(mine)[1]!.data).toMatchObject({ id: conv.id });
      expect((await thread(conv.id, agent.token)).find((m) => m.id === id)).toMatchObject({ status: "cancelled" });

      // another one goes out at its time: queued, with an update when it leaves `scheduled`
      const r2 = await t.request("POST", "/api/v1/messages/send", {
        token: ws.owner.token,
        body: { session_id: s1.id, type: "text", to: "919877700001", body: "Reminder", sendAt: later(MINUTE) },
      });
      const id2 = r2.body.data.id as string;
      await waitFor(() => updates(mine).length >= 3, "conversation_updated for the second scheduled send");
      t.clock.advance(MINUTE);
      await drain(t);
      await waitFor(() => updates(mine).length >= 4, "conversation_updated when it is queued");
      expect(updates(mine)[3]!.data).toMatchObject({ id: conv.id, lastMessage: { id: id2 } });
      expect(await statusOf(t, id2)).toBe("sent");

      // nothing of it on another workspace's socket
      expect(updates(theirs)).toEqual([]);
    } finally {
      mine.sock.close();
      theirs.sock.close();
    }
  });

  test("a refused cancellation (another workspace's message, or one already cancelled) sends nothing", async () => {
    const r = await t.request("POST", "/api/v1/messages/send", {
      token: ws.owner.token,
      body: { session_id: s1.id, type: "text", to: "919877700002", body: "later", sendAt: later(10 * MINUTE) },
    });
    const id = r.body.data.id as string;
    const otherToken = await accessToken(t, other.owner.userId, other.id, "owner");
    const mine = await open(agent.token);
    try {
      expect((await t.request("DELETE", `/api/v1/messages/${id}`, { token: otherToken })).status).toBe(404);
      expect((await t.request("DELETE", `/api/v1/messages/${id}`, { token: ws.owner.token })).status).toBe(200);
      expect((await t.request("DELETE", `/api/v1/messages/${id}`, { token: ws.owner.token })).status).toBe(409);
      await waitFor(() => updates(mine).length >= 1, "conversation_updated for the cancellation");
      // a later event proves nothing else was queued behind the refused ones
      await t.request("POST", `/api/v1/inbox/conversations/${updates(mine)[0]!.data.id}/read`, { token: agent.token });
      await waitFor(() => updates(mine).length >= 2, "conversation_updated for the read");
      expect(updates(mine)).toHaveLength(2);
    } finally {
      mine.sock.close();
    }
  });
});
