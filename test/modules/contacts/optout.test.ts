// Opt-out and opt-in keywords on inbound text over the sim network (docs/contacts-and-campaigns.md).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, recordEvents, waitFor } from "../messages/helpers.ts";
import type { AppEvent } from "../../../src/events/bus.ts";

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string };
let events: AppEvent[];
let seq = 0;
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
  events = recordEvents(t);
});
afterAll(() => t.close());

/** One inbound text through the sim network; waits until it is stored. */
async function inbound(from: string, text: string) {
  const before = events.filter((e) => e.event === "message_received").length;
  t.sim.inbound(session.id, { from, pushName: "P", type: "text", text, networkMessageId: `K${++seq}` });
  await waitFor(() => events.filter((e) => e.event === "message_received").length > before, "message_received");
}
const contact = async (phone: string) =>
  (await t.request("GET", `/api/v1/contacts?search=${phone}`, { token: ws.owner.token })).body.data[0] as { optedOut: boolean; optedOutAt: string | null };

test("STOP (any case, trimmed) opts out; START opts back in; other texts change nothing", async () => {
  const phone = "919877700001";
  await inbound(phone, "hello");
  expect((await contact(phone)).optedOut).toBe(false);
  await inbound(phone, "  stop \n");
  const out = await contact(phone);
  expect(out.optedOut).toBe(true);
  expect(out.optedOutAt).toBe(t.clock.now().toISOString());
  await inbound(phone, "please stop sending");
  expect((await contact(phone)).optedOut).toBe(true);
  await inbound(phone, "UnSubscribe");
  expect((await contact(phone)).optedOutAt).toBe(out.optedOutAt); // already out: the first time stays
  await inbound(phone, "Start");
  expect(await contact(phone)).toMatchObject({ optedOut: false, optedOutAt: null });
  // the keyword message itself is an ordinary inbound message (still delivered as message_received)
  const texts = events.filter((e) => e.event === "message_received" && e.data.from === phone).map((e) => e.data.text);
  expect(texts).toEqual(["hello", "  stop \n", "please stop sending", "UnSubscribe", "Start"]);
  expect(events.some((e) => !["message_received"].includes(e.event) && e.event.startsWith("contact"))).toBe(false);
});

test("a first message that is STOP creates the contact opted out", async () => {
  await inbound("919877700002", "STOP");
  expect((await contact("919877700002")).optedOut).toBe(true);
});

test("workspace keywords: GET shows defaults, PATCH replaces them (owner/admin), used at once", async () => {
  const g = await t.request("GET", "/api/workspace", { token: ws.owner.token });
  expect(g.body.data).toMatchObject({ optOutKeywords: ["STOP", "UNSUBSCRIBE"], optInKeywords: ["START"] });
  const p = await t.request("PATCH", "/api/workspace", { token: ws.owner.token, body: { optOutKeywords: ["baNd karo", "quit"], optInKeywords: ["resume"] } });
  expect(p.status).toBe(200);
  expect(p.body.data).toMatchObject({ optOutKeywords: ["BAND KARO", "QUIT"], optInKeywords: ["RESUME"] });
  const phone = "919877700003";
  await inbound(phone, "STOP");
  expect((await contact(phone)).optedOut).toBe(false); // no longer a keyword
  await inbound(phone, "band karo");
  expect((await contact(phone)).optedOut).toBe(true);
  await inbound(phone, "Resume");
  expect((await contact(phone)).optedOut).toBe(false);
  const agent = await ws.member("agent");
  expect((await t.request("PATCH", "/api/workspace", { token: agent.token, body: { optOutKeywords: ["x"] } })).status).toBe(403);
});

test("keyword validation: 400 with the field, nothing changes", async () => {
  const before = (await t.request("GET", "/api/workspace", { token: ws.owner.token })).body.data;
  for (const [body, field] of [
    [{ optOutKeywords: [""] }, "optOutKeywords.0"],
    [{ optOutKeywords: ["x".repeat(41)] }, "optOutKeywords.0"],
    [{ optInKeywords: "START" }, "optInKeywords"],
    [{ optInKeywords: ["QUIT"] }, "optInKeywords"],
    [{ optOutKeywords: ["resume"], name: "Renamed" }, "optOutKeywords"],
  ] as const) {
    const r = await t.request("PATCH", "/api/workspace", { token: ws.owner.token, body });
    expect(r.status).toBe(400);
    expect(r.body.errors).toHaveProperty([field]);
  }
  expect((await t.request("GET", "/api/workspace", { token: ws.owner.token })).body.data).toEqual(before);
});

test("a keyword with trailing punctuation (\"Stop.\", \"STOP!!\", \"unsubscribe?\") still opts out; \"start!\" back in; \"stop it.\" does not", async () => {
  const phone = "919877700091";
  const reset = await t.request("PATCH", "/api/workspace", { token: ws.owner.token, body: { optOutKeywords: ["STOP", "UNSUBSCRIBE"], optInKeywords: ["START"] } });
  expect(reset.status).toBe(200);
  await inbound(phone, "hello");
  await inbound(phone, "stop it.");
  expect((await contact(phone)).optedOut).toBe(false);
  await inbound(phone, "Stop.");
  expect((await contact(phone)).optedOut).toBe(true);
  await inbound(phone, "start!");
  expect((await contact(phone)).optedOut).toBe(false);
  await inbound(phone, " STOP!! ");
  expect((await contact(phone)).optedOut).toBe(true);
  await inbound(phone, "Start");
  await inbound(phone, "unsubscribe?");
  expect((await contact(phone)).optedOut).toBe(true);
});
