import { afterAll, beforeAll, expect, test } from "bun:test";
import { websocketOptions } from "../../../src/server.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, waitFor } from "../messages/helpers.ts";

// The dashboard's real-time socket sees a group's message with its group and writer.

let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp();
  t.app.listen({ hostname: "127.0.0.1", port: 0, websocket: websocketOptions(t.deps.config) });
  ws = await createWorkspace(t);
});
afterAll(async () => {
  await t.app.stop(true);
  await t.close();
});

test("message_received over /api/ws carries groupId and participant for a group's message", async () => {
  const s = await connectedSession(t, ws);
  await t.request("PATCH", `/api/v1/chatapp/${s.id}`, { token: ws.owner.token, body: { settings: { groups: true } } });
  const group = (await t.request("POST", `/api/sim/sessions/${s.id}/groups`, { token: ws.owner.token, body: { name: "Team", participants: ["919822200021"] } })).body.data;
  const events: any[] = [];
  const sock = new WebSocket(`ws://127.0.0.1:${t.app.server!.port}/api/ws?token=${ws.owner.token}`);
  await new Promise<void>((resolve, reject) => {
    sock.onmessage = (m) => {
      const e = JSON.parse(String(m.data));
      events.push(e);
      if (e.event === "ready") resolve();
    };
    sock.onerror = () => reject(new Error("websocket failed"));
  });
  await t.request("POST", `/api/sim/sessions/${s.id}/inbound`, { token: ws.owner.token, body: { groupId: group.id, from: "919822200021", pushName: "Dev", text: "standup?" } });
  const e = await waitFor(() => events.find((x) => x.event === "message_received"), "message_received over the socket");
  expect(e.data).toMatchObject({ sessionId: s.id, groupId: group.id, participant: "919822200021", from: "919822200021", pushName: "Dev", text: "standup?" });
  sock.close();
});
