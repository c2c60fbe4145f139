// A scheduled send stores text and media only: a reaction, location, contact card or quoting send
// with sendAt is refused with 400 naming sendAt, and nothing is stored.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, recordEvents, waitFor } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let s1: { id: string; phone: string };
let question: string;
const asha = "919811155555";

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  s1 = await connectedSession(t, ws);
  const events = recordEvents(t);
  t.sim.inbound(s1.id, { from: asha, type: "text", text: "open on Sunday?" });
  question = ((await waitFor(() => events.find((e) => e.event === "message_received"), "message_received")).data as { messageId: string }).messageId;
});
afterAll(() => t.close());

test("sendAt with a reaction, a location, a contact card or replyTo: 400 naming sendAt, nothing stored", async () => {
  const sendAt = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
  const bodies = [
    { type: "reaction", reaction: { messageId: question, emoji: "👍" } },
    { type: "location", location: { latitude: 18.52, longitude: 73.85 } },
    { type: "contact", contact: { name: "Shop", phones: ["919800000001"] } },
    { type: "text", body: "yes, 10 to 2", replyTo: question },
  ];
  for (const b of bodies) {
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s1.id, to: asha, sendAt, ...b } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(r.body.errors)).toContain("sendAt");
  }
  const list = await t.request("GET", `/api/v1/messages?limit=50`, { token: ws.owner.token });
  expect(list.body.data.filter((m: { direction: string }) => m.direction === "outbound")).toEqual([]);
  // a plain text send may still be scheduled
  const ok = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: s1.id, to: asha, sendAt, body: "see you Sunday" } });
  expect(ok.status).toBe(202);
  expect(ok.body.data.status).toBe("scheduled");
});
