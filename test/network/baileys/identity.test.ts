import { afterAll, beforeAll, expect, test } from "bun:test";
import { mergeIdentity } from "../../../src/modules/messages/identity.ts";
import { harness, until, type Harness } from "./harness.ts";

// One person first seen by LID (the network hides the number) and later by number: baileys
// emits `lid-mapping.update` ({lid, pn}) when it learns the pair, or a message key carries both
// (remoteJid and remoteJidAlt). The two contacts and conversations become one.

let h: Harness;
beforeAll(async () => {
  h = await harness({ driver: { watchdogMs: 0 } });
});
afterAll(async () => {
  await h.rt.close();
});

const q = async (sql: string, ...args: (string | number)[]) => (await h.rt.deps.db.prepare(sql).all(...args)) as any[];
const stored = (nid: string) => until(async () => (await q("SELECT 1 FROM messages WHERE network_message_id = ?", nid)).length === 1, nid);

test("lid-mapping.update merges the LID's contact, conversations and messages into the number's, in every session of the workspace", async () => {
  const a = await h.linkedSession("A");
  const b = await h.linkedSession("B");
  const LID = "201575769710001@lid";
  const PN = "919800000123";
  // first by LID on both sessions, then by number on A
  a.sock.upsert([{ key: { remoteJid: LID, fromMe: false, id: "L1" }, pushName: "Asha (LID)", messageTimestamp: 1767225600, message: { conversation: "hi from the lid" } }]);
  b.sock.upsert([{ key: { remoteJid: LID, fromMe: false, id: "L2" }, message: { conversation: "hi on B" } }]);
  await stored("L1");
  await stored("L2");
  a.sock.upsert([{ key: { remoteJid: `${PN}@s.whatsapp.net`, fromMe: false, id: "P1" }, pushName: "Asha", message: { conversation: "hi from the number" } }]);
  await stored("P1");
  const lidContact = (await q("SELECT id FROM contacts WHERE phone = ?", LID))[0].id;
  const pnContact = (await q("SELECT id FROM contacts WHERE phone = ?", PN))[0].id;
  expect((await h.call("PATCH", `/api/v1/contacts/${lidContact}`, { name: "Asha K", tags: ["vip"], optedOut: true })).status).toBe(200);
  expect((await h.call("PATCH", `/api/v1/contacts/${pnContact}`, { tags: ["lead"], attributes: { city: "Pune" } })).status).toBe(200);
  expect((await q("SELECT count(*) AS n FROM conversations"))[0].n).toBe(3);

  a.sock.ev.emit("lid-mapping.update", { lid: LID, pn: `${PN}@s.whatsapp.net` });
  await until(async () => (await q("SELECT 1 FROM contacts WHERE phone = ?", LID)).length === 0, "merged");

  const contacts = (await h.call("GET", "/api/v1/contacts")).body.data;
  expect(contacts).toHaveLength(1);
  expect(contacts[0]).toMatchObject({ id: pnContact, phone: PN, name: "Asha K", optedOut: true, attributes: { city: "Pune" } });
  expect([...contacts[0].tags].sort()).toEqual(["lead", "vip"]);
  // the filter tables follow the merged contact
  expect((await q("SELECT tag FROM contact_tags WHERE contact_id = ? ORDER BY tag", pnContact)).map((r) => r.tag)).toEqual(["lead", "vip"]);
  // A: one conversation with both messages; B: its conversation moved to the number
  const convs = await q("SELECT id, session_id AS s, phone, contact_id AS c, unread_count AS unread, last_message_id AS last FROM conversations ORDER BY session_id");
  expect(convs).toHaveLength(2);
  for (const c of convs) expect(c).toMatchObject({ phone: PN, c: pnContact });
  const convA = convs.find((c) => c.s === a.id);
  expect(convA.unread).toBe(2);
  expect((await q("SELECT network_message_id AS n FROM messages WHERE conversation_id = ? ORDER BY id", convA.id)).map((r) => r.n)).toEqual(["L1", "P1"]);
  expect((await q("SELECT count(*) AS n FROM messages WHERE phone = ?", LID))[0].n).toBe(0);
  expect((await q("SELECT count(*) AS n FROM messages WHERE phone = ?", PN))[0].n).toBe(3);
  // the API shows one thread
  const list = (await h.call("GET", "/api/v1/inbox/conversations")).body.data;
  expect(list.map((c: any) => c.phone)).toEqual([PN, PN]);

  // a later message by LID resolves to the number (baileys' store knows the pair now): no new contact
  a.sock.lids.set(LID, `${PN}@s.whatsapp.net`);
  a.sock.upsert([{ key: { remoteJid: LID, fromMe: false, id: "L3" }, message: { conversation: "again" } }]);
  await stored("L3");
  expect((await q("SELECT phone, conversation_id AS c FROM messages WHERE network_message_id = 'L3'"))[0]).toEqual({ phone: PN, c: convA.id });
  expect((await q("SELECT count(*) AS n FROM contacts"))[0].n).toBe(1);
});

test("a message key that carries both the LID and the number merges as well (once per pair)", async () => {
  const { sock } = await h.linkedSession("C");
  const LID = "201575769710002@lid";
  const PN = "919800000124";
  sock.upsert([{ key: { remoteJid: LID, fromMe: false, id: "M1" }, message: { conversation: "by lid" } }]);
  await stored("M1");
  sock.upsert([{ key: { remoteJid: LID, remoteJidAlt: `${PN}@s.whatsapp.net`, fromMe: false, id: "M2" } as never, message: { conversation: "with both" } }]);
  await stored("M2");
  await until(async () => (await q("SELECT 1 FROM contacts WHERE phone = ?", LID)).length === 0, "merged");
  expect((await q("SELECT phone FROM messages WHERE network_message_id IN ('M1', 'M2')")).map((r) => r.phone)).toEqual([PN, PN]);
  expect((await q("SELECT count(*) AS n FROM conversations WHERE phone = ?", PN))[0].n).toBe(1);
  expect(h.driverEvents.filter((e) => e.type === "identity" && e.lid === LID)).toHaveLength(1);
});

test("the merge is one transaction: a failure half-way leaves contacts, conversations and messages as they were", async () => {
  const { id, sock } = await h.linkedSession("D");
  const LID = "201575769710003@lid";
  const PN = "919800000125";
  sock.upsert([{ key: { remoteJid: LID, fromMe: false, id: "T1" }, message: { conversation: "lid" } }]);
  sock.upsert([{ key: { remoteJid: `${PN}@s.whatsapp.net`, fromMe: false, id: "T2" }, message: { conversation: "number" } }]);
  await stored("T1");
  await stored("T2");
  const snapshot = async () => ({
    contacts: await q("SELECT id, phone FROM contacts WHERE phone IN (?, ?) ORDER BY id", LID, PN),
    conversations: await q("SELECT id, phone, unread_count FROM conversations WHERE phone IN (?, ?) ORDER BY id", LID, PN),
    messages: await q("SELECT id, phone, conversation_id FROM messages WHERE network_message_id IN ('T1', 'T2') ORDER BY id"),
  });
  const before = await snapshot();
  // the folding of the two conversations fails after the contacts and messages were changed
  const db = h.rt.deps.db;
  await db.exec(
    db.engine === "postgres"
      ? `CREATE FUNCTION fail_merge() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$;
         CREATE TRIGGER fail_merge BEFORE DELETE ON conversations FOR EACH ROW EXECUTE FUNCTION fail_merge()`
      : "CREATE TRIGGER fail_merge BEFORE DELETE ON conversations BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
  );
  try {
    // drizzle reports the failed statement; the database's refusal is its cause
    const err = (await mergeIdentity(h.rt.deps, id, LID, PN).then(
      () => null,
      (e: unknown) => e,
    )) as (Error & { cause?: Error }) | null;
    expect(err).toBeInstanceOf(Error);
    expect(`${err!.message} ${err!.cause?.message ?? ""}`).toContain("disk on fire");
  } finally {
    await db.exec(db.engine === "postgres" ? "DROP TRIGGER fail_merge ON conversations; DROP FUNCTION fail_merge()" : "DROP TRIGGER fail_merge");
  }
  expect(await snapshot()).toEqual(before);
  expect(await mergeIdentity(h.rt.deps, id, LID, PN)).toMatchObject({ conversations: 1, messages: 1 });
  expect((await snapshot()).contacts.map((c: any) => c.phone)).toEqual([PN]);
  // again: nothing left to merge, nothing changes
  expect(await mergeIdentity(h.rt.deps, id, LID, PN)).toMatchObject({ conversations: 0, messages: 0 });
  // foreign or malformed input is refused
  expect(await mergeIdentity(h.rt.deps, "no-such-session", LID, PN)).toBeNull();
  expect(await mergeIdentity(h.rt.deps, id, "123@s.whatsapp.net", PN)).toBeNull();
});
