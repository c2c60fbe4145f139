import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, drain, ISO_MS, recordEvents } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string; phone: string };
beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, publicUrl: "https://parley.test" } });
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
});
afterAll(() => t.close());

describe("send text", () => {
  test("202 queued, then sent over the sim network with message_sent", async () => {
    const events = recordEvents(t);
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to: "919876543210", type: "text", body: "hello" } });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body.data).sort()).toEqual(["createdAt", "id", "sessionId", "status", "to", "type"]);
    expect(r.body.data).toMatchObject({ status: "queued", sessionId: session.id, to: "919876543210", type: "text" });
    expect(r.body.data.createdAt).toMatch(ISO_MS);
    await drain(t);
    const sent = t.sim.sent.filter((s) => s.message.text === "hello");
    expect(sent.length).toBe(1);
    expect(sent[0]!.message.to).toBe("919876543210");
    const ev = events.filter((e) => e.event === "message_sent");
    expect(ev.length).toBe(1);
    expect(ev[0]!.data).toEqual({ sessionId: session.id, to: "919876543210", messageId: r.body.data.id });
    const got = await t.request("GET", `/api/v1/messages/${r.body.data.id}`, { token: ws.owner.token });
    expect(got.body.data.status).toBe("sent");
    expect(got.body.data.networkMessageId).toBe(sent[0]!.networkMessageId);
  });
});
