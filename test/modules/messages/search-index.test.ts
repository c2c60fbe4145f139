import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { textIndexCaughtUp } from "../../../src/modules/messages/fts-repo.ts";
import { insertMessage } from "../../../src/modules/messages/repo.ts";
import type { SendGroup } from "../../../src/modules/messages/send-batch.ts";
import { insertQueuedMessage, touchOutboundConversation } from "../../../src/modules/messages/send-repo.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { advanceUntil, campaign, campaignBody, newCampaign, seedContacts } from "../campaigns/helpers.ts";
import { connectedSession, drain, recordEvents, waitFor } from "./helpers.ts";

// Every path that stores a message has its text found by the inbox search (on SQLite the index
// follows the messages table and a search catches it up first; on PostgreSQL the row's own index):
// a rolled-back message is not found, and on SQLite the index matches the messages exactly
// afterwards (FTS5's integrity check against its content). search-index-follows.test.ts tests
// the following itself.

let t: TestApp;
let ws: TestWorkspace;
let s: { id: string; phone: string };
let seq = 0;
const phone = () => `91966${String(100_000 + ++seq).padStart(7, "0")}`;
const owner = () => accessToken(t, ws.owner.userId, ws.id, "owner");
const search = async (words: string) =>
  (await t.request("GET", `/api/v1/inbox/search?q=${encodeURIComponent(words)}`, { token: await owner() })).body.data.map((m: { body: string }) => m.body) as string[];

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  ws = await createWorkspace(t);
  s = await connectedSession(t, ws);
});
afterAll(() => t.close());

async function integrity(): Promise<void> {
  if (t.deps.db.engine !== "sqlite") return;
  // caught up first (the follower may not have looked yet); rank 1: checks the index against the
  // messages' text too (a missing or extra entry fails)
  await textIndexCaughtUp(t.deps.db);
  await t.deps.db.prepare("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)").run();
}

describe("every insert path's messages are found (both engines)", () => {
  test("inbound", async () => {
    const events = recordEvents(t);
    t.sim.inbound(s.id, { from: phone(), type: "text", text: "inbound walrus arrives" });
    await waitFor(() => events.some((e) => e.event === "message_received"), "message_received");
    expect(await search("walrus")).toEqual(["inbound walrus arrives"]);
  });

  test("API send, and a scheduled send", async () => {
    const token = await owner();
    const r = await t.request("POST", "/api/v1/messages/send", { token, body: { session_id: s.id, to: phone(), body: "api pelican note" } });
    expect(r.status).toBe(202);
    expect(await search("pelican")).toEqual(["api pelican note"]);
    const sendAt = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    const sch = await t.request("POST", "/api/v1/messages/send", { token, body: { session_id: s.id, to: phone(), body: "scheduled heron note", sendAt } });
    expect(sch.status).toBe(202);
    expect(sch.body.data.status).toBe("scheduled");
    expect(await search("heron")).toEqual(["scheduled heron note"]);
    await integrity();
  });

  test("a send group with a failing send in the middle: the others are found, the failed one is not", async () => {
    const groups = new Set<SendGroup>();
    const send = (text: string, fail: boolean) =>
      t.deps.sends.run(async (group) => {
        groups.add(group);
        group.writing();
        const at = t.clock.now().getTime();
        const id = Bun.randomUUIDv7();
        const to = phone();
        const conversationId = await touchOutboundConversation(t.deps.db, ws.id, { sessionId: s.id, phone: to, messageId: id, at });
        await insertQueuedMessage(t.deps.db, ws.id, { id, sessionId: s.id, conversationId, phone: to, sessionPhone: s.phone, type: "text", body: text, mediaId: null, createdBy: ws.owner.userId, at });
        if (fail) throw new Error("refused after writing");
        return id;
      });
    // pushed in the same turn: one group transaction, a savepoint per send
    const out = await Promise.allSettled([send("group otter one", false), send("group otter two", true), send("group otter three", false)]);
    expect(out.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(groups.size).toBe(1);
    expect((await search("otter")).sort()).toEqual(["group otter one", "group otter three"]);
    await integrity();
  });

  test("campaign", async () => {
    const people = await seedContacts(t, ws, 1, () => ({ name: "Ibis" }));
    const id = await newCampaign(t, ws, campaignBody([s.id], people.map((p) => p.id), { message: { type: "text", body: "campaign flamingo for {{name}}" } }));
    await advanceUntil(t, 100, async () => (await search("flamingo")).length > 0 || (await campaign(t, ws, id)).status === "completed", 500);
    expect(await search("flamingo")).toEqual(["campaign flamingo for Ibis"]);
  });

  test("automation reply", async () => {
    const token = await owner();
    const created = await t.request("POST", "/api/v1/automations", {
      token,
      body: { name: "Kiwi", trigger: { type: "keyword", keywords: ["kiwi"], match: "exact" }, reply: { body: "automation kiwi answer" }, cooldownMinutes: 60 },
    });
    expect(created.status).toBe(201);
    const events = recordEvents(t);
    t.sim.inbound(s.id, { from: phone(), type: "text", text: "kiwi" });
    await waitFor(() => events.some((e) => e.event === "message_received"), "message_received");
    for (let i = 0; i < 2; i++) {
      t.clock.advance(10_000);
      await drain(t);
    }
    expect(await search("answer")).toEqual(["automation kiwi answer"]);
    await integrity();
  });

  test("a rolled-back insert leaves no entry; a committed one is found", async () => {
    const at = t.clock.now().getTime();
    const conv = await t.deps.db.prepare<{ id: string }>("SELECT conversation_id AS id FROM messages WHERE workspace_id = ? LIMIT 1").get(ws.id);
    const row = (id: string, body: string) => ({ id, sessionId: s.id, conversationId: conv!.id, direction: "inbound" as const, phone: "919660000001", type: "text" as const, body, status: "received" as const, createdAt: at, updatedAt: at });
    await expect(
      t.deps.db.tx(async () => {
        await insertMessage(t.deps.db, ws.id, row(Bun.randomUUIDv7(), "phantom lemur text"));
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await search("lemur")).toEqual([]);
    // a savepoint rolled back inside a committed transaction
    await t.deps.db.tx(async () => {
      await insertMessage(t.deps.db, ws.id, row(Bun.randomUUIDv7(), "kept lemur text"));
      await t.deps.db.tx(async () => {
        await insertMessage(t.deps.db, ws.id, row(Bun.randomUUIDv7(), "inner lemur text"));
        throw new Error("inner");
      }).catch(() => {});
    });
    expect(await search("lemur")).toEqual(["kept lemur text"]);
    // outside a transaction: the message and its entry in one
    await insertMessage(t.deps.db, ws.id, row(Bun.randomUUIDv7(), "alone lemur text"));
    expect((await search("lemur")).sort()).toEqual(["alone lemur text", "kept lemur text"]);
    await integrity();
  });

  test("SQLite only: no insert trigger is left on messages", async () => {
    if (t.deps.db.engine !== "sqlite") return;
    const triggers = await t.deps.db.prepare<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' ORDER BY name").all();
    expect(triggers.map((r) => r.name)).toEqual(["messages_fts_delete", "messages_fts_update"]);
  });
});
