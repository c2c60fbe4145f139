import { afterAll, expect, test } from "bun:test";
import { mergeIdentity } from "../../../src/modules/messages/identity.ts";
import { createTestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, waitFor } from "./helpers.ts";

// One person recorded twice, by LID and by number, merged into the number's contact,
// conversations and messages (test/network/baileys/identity.test.ts drives it through the
// baileys driver's events). Here on the store directly, so it runs on either engine: the fold
// of two conversations is engine-specific SQL, and the merge is one transaction on both.

const t = await createTestApp();
afterAll(() => t.close());

const q = async (sql: string, ...args: string[]) => (await t.deps.db.prepare(sql).all(...args)) as any[];

async function inbound(sessionId: string, from: string, text: string): Promise<void> {
  const nid = t.sim.inbound(sessionId, { from, type: "text", text });
  await waitFor(async () => (await q("SELECT 1 FROM messages WHERE network_message_id = ?", nid)).length === 1, nid);
}

test("the LID's contact, conversations (renamed or folded per session) and messages move to the number, on either engine", async () => {
  const ws = await createWorkspace(t);
  const a = await connectedSession(t, ws);
  const b = await connectedSession(t, ws);
  const LID = "201575769720001@lid";
  const PN = "919800000223";
  await inbound(a.id, PN, "by number on A");
  t.clock.advance(1000);
  await inbound(a.id, LID, "by lid on A");
  await inbound(b.id, LID, "by lid on B");
  const [lidContact] = await q("SELECT id FROM contacts WHERE workspace_id = ? AND phone = ?", ws.id, LID);
  const [pnContact] = await q("SELECT id FROM contacts WHERE workspace_id = ? AND phone = ?", ws.id, PN);
  const token = ws.owner.token;
  expect((await t.request("PATCH", `/api/v1/contacts/${lidContact.id}`, { token, body: { name: "Asha K", tags: ["vip"] } })).status).toBe(200);
  expect((await t.request("PATCH", `/api/v1/contacts/${pnContact.id}`, { token, body: { tags: ["lead"], attributes: { city: "Pune" } } })).status).toBe(200);
  const [lidLast] = await q("SELECT last_message_id AS id, last_message_at AS at FROM conversations WHERE session_id = ? AND phone = ?", a.id, LID);

  expect(await mergeIdentity(t.deps, a.id, LID, PN)).toEqual({ contactId: pnContact.id, conversations: 2, messages: 2 });

  const contacts = await q("SELECT id, phone, name FROM contacts WHERE workspace_id = ?", ws.id);
  expect(contacts).toEqual([{ id: pnContact.id, phone: PN, name: "Asha K" }]);
  expect((await q("SELECT tag FROM contact_tags WHERE contact_id = ? ORDER BY tag", pnContact.id)).map((r) => r.tag)).toEqual(["lead", "vip"]);
  const convs = await q(
    'SELECT id, session_id AS "sessionId", phone, contact_id AS "contactId", unread_count AS unread, last_message_id AS "lastMessageId" FROM conversations WHERE workspace_id = ? ORDER BY session_id',
    ws.id,
  );
  expect(convs.map((c) => [c.sessionId, c.phone, c.contactId])).toEqual(
    [
      [a.id, PN, pnContact.id],
      [b.id, PN, pnContact.id],
    ].sort((x, y) => x[0]!.localeCompare(y[0]!)),
  );
  // A: the LID's conversation folded into the number's: unread counts added, the later last message (the LID's) kept
  const convA = convs.find((c) => c.sessionId === a.id);
  expect(convA).toMatchObject({ unread: 2, lastMessageId: lidLast.id });
  expect(await q("SELECT last_message_at AS at FROM conversations WHERE id = ?", convA.id)).toEqual([{ at: lidLast.at }]);
  expect((await q("SELECT body FROM messages WHERE conversation_id = ? ORDER BY id", convA.id)).map((r) => r.body)).toEqual(["by number on A", "by lid on A"]);
  expect(await q("SELECT count(*) AS n FROM messages WHERE workspace_id = ? AND phone = ?", ws.id, LID)).toEqual([{ n: 0 }]);
  // again: nothing left under the LID
  expect(await mergeIdentity(t.deps, a.id, LID, PN)).toEqual({ contactId: pnContact.id, conversations: 0, messages: 0 });
});

test("a folded conversation's labels and internal notes move to the one it is folded into", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const LID = "201575769720003@lid";
  const PN = "919800000225";
  await inbound(s.id, PN, "by number");
  t.clock.advance(1000);
  await inbound(s.id, LID, "by lid");
  const token = ws.owner.token;
  const [byPn] = await q("SELECT id FROM conversations WHERE session_id = ? AND phone = ?", s.id, PN);
  const [byLid] = await q("SELECT id FROM conversations WHERE session_id = ? AND phone = ?", s.id, LID);
  expect((await t.request("PATCH", `/api/v1/inbox/conversations/${byPn.id}`, { token, body: { labels: ["lead"] } })).status).toBe(200);
  expect((await t.request("PATCH", `/api/v1/inbox/conversations/${byLid.id}`, { token, body: { labels: ["vip", "lead"] } })).status).toBe(200);
  expect((await t.request("POST", `/api/v1/inbox/conversations/${byLid.id}/notes`, { token, body: { body: "asked for a callback" } })).status).toBe(201);

  await mergeIdentity(t.deps, s.id, LID, PN);

  const kept = await t.request("GET", `/api/v1/inbox/conversations/${byPn.id}`, { token });
  expect(kept.body.data.labels.sort()).toEqual(["lead", "vip"]);
  expect((await q("SELECT label FROM conversation_labels WHERE conversation_id = ? ORDER BY label", byPn.id)).map((r) => r.label)).toEqual(["lead", "vip"]);
  expect(await q("SELECT count(*) AS n FROM conversation_labels WHERE conversation_id = ?", byLid.id)).toEqual([{ n: 0 }]);
  const thread = await t.request("GET", `/api/v1/inbox/conversations/${byPn.id}/messages`, { token });
  expect(thread.body.data.map((m: { type: string; body: string }) => [m.type, m.body])).toEqual([
    ["note", "asked for a callback"],
    ["text", "by lid"],
    ["text", "by number"],
  ]);
  expect((await t.request("GET", `/api/v1/inbox/conversations/${byLid.id}`, { token })).status).toBe(404);
});

test("a failure half-way rolls the whole merge back, on either engine", async () => {
  const ws = await createWorkspace(t);
  const s = await connectedSession(t, ws);
  const LID = "201575769720002@lid";
  const PN = "919800000224";
  await inbound(s.id, LID, "lid");
  await inbound(s.id, PN, "number");
  const snapshot = async () => ({
    contacts: await q("SELECT id, phone FROM contacts WHERE workspace_id = ? ORDER BY id", ws.id),
    conversations: await q("SELECT id, phone, unread_count AS unread FROM conversations WHERE workspace_id = ? ORDER BY id", ws.id),
    messages: await q("SELECT id, phone, conversation_id AS conv FROM messages WHERE workspace_id = ? ORDER BY id", ws.id),
  });
  const before = await snapshot();
  const db = t.deps.db;
  // the fold's delete of the LID's conversation fails after the contacts and messages changed
  await db.exec(
    db.engine === "postgres"
      ? `CREATE FUNCTION fail_fold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$;
         CREATE TRIGGER fail_fold BEFORE DELETE ON conversations FOR EACH ROW EXECUTE FUNCTION fail_fold()`
      : "CREATE TRIGGER fail_fold BEFORE DELETE ON conversations BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
  );
  try {
    const err = (await mergeIdentity(t.deps, s.id, LID, PN).then(
      () => null,
      (e: unknown) => e,
    )) as (Error & { cause?: Error }) | null;
    expect(err).toBeInstanceOf(Error);
    expect(`${err!.message} ${err!.cause?.message ?? ""}`).toContain("disk on fire");
  } finally {
    await db.exec(db.engine === "postgres" ? "DROP TRIGGER fail_fold ON conversations; DROP FUNCTION fail_fold()" : "DROP TRIGGER fail_fold");
  }
  expect(await snapshot()).toEqual(before);
  expect(await mergeIdentity(t.deps, s.id, LID, PN)).toMatchObject({ conversations: 1, messages: 1 });
  expect((await snapshot()).contacts.map((c) => c.phone)).toEqual([PN]);
});
