import { afterAll, expect, test } from "bun:test";
import { UNDECRYPTABLE_TEXT } from "../../../src/network/baileys/translate.ts";
import { harness, until, type Harness } from "./harness.ts";

// A message baileys could not decrypt (the LID migration's "Bad MAC" / "No session" cases): rc14
// upserts a stub without content (messageStubType 2, CIPHERTEXT, the error as its parameter)
// after sending the sender's device a retry receipt; the copy sent again arrives with the same id.

const TOKEN = "metrics-token-0123456789";
const open: Harness[] = [];
afterAll(async () => {
  for (const h of open) await h.rt.close().catch(() => {});
});

async function undecryptableCount(h: Harness): Promise<number> {
  const res = await h.rt.app.handle(new Request("http://localhost/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }));
  expect(res.status).toBe(200);
  const line = (await res.text()).split("\n").find((l) => l.startsWith("parley_inbound_undecryptable_total"));
  return Number(line?.split(" ")[1] ?? Number.NaN);
}

test("an undecryptable message is logged, counted, kept in the thread as a placeholder, and replaced by the copy the network sends again", async () => {
  const h = await harness({ config: { metricsToken: TOKEN }, driver: { watchdogMs: 0 } });
  open.push(h);
  const { id, sock } = await h.linkedSession();
  const before = await undecryptableCount(h);
  const key = { remoteJid: "919800000077@s.whatsapp.net", fromMe: false, id: "3EB0BADMAC0001" };
  sock.upsert([{ key, messageTimestamp: 1767225600, pushName: "Ravi", messageStubType: 2, messageStubParameters: ["Bad MAC"] } as never]);
  const row = async () =>
    (await h.rt.deps.db.prepare('SELECT id, type, body, status, error_code AS "errorCode", conversation_id AS conv FROM messages WHERE network_message_id = ?').all(key.id)) as any[];
  await until(async () => (await row()).length === 1, "placeholder stored");
  expect((await row())[0]).toMatchObject({ type: "text", body: UNDECRYPTABLE_TEXT, status: "received", errorCode: "undecryptable" });
  expect(await undecryptableCount(h)).toBe(before + 1);
  // it is in the thread (the conversation counts it unread), not yet announced
  const conv = (await h.call("GET", "/api/v1/inbox/conversations")).body.data.find((c: any) => c.phone === "919800000077");
  expect(conv).toBeDefined();
  expect(h.appEvents.filter((e) => e.event === "message_received" && e.data.sessionId === id)).toEqual([]);
  // the same stub again (the socket retried): still one placeholder, counted once
  sock.upsert([{ key, messageTimestamp: 1767225600, messageStubType: 2, messageStubParameters: ["Bad MAC"] } as never]);
  // the copy sent again decrypts: it takes the placeholder's place and is announced once
  sock.upsert([{ key, messageTimestamp: 1767225600, pushName: "Ravi", message: { conversation: "the real text" } }]);
  await until(async () => (await row())[0]?.body === "the real text", "replaced");
  const rows = await row();
  expect(rows).toEqual([expect.objectContaining({ type: "text", body: "the real text", status: "received", errorCode: null, conv: rows[0].conv })]);
  const received = h.appEvents.filter((e) => e.event === "message_received" && e.data.sessionId === id);
  expect(received.map((e) => [e.data.messageId, e.data.text, e.data.from])).toEqual([[rows[0].id, "the real text", "919800000077"]]);
  expect(await undecryptableCount(h)).toBe(before + 1);
  const thread = (await h.call("GET", `/api/v1/inbox/conversations/${rows[0].conv}`)).body.data;
  expect(thread.unreadCount).toBe(1);
  // a late stub of a message that is already readable changes nothing
  sock.upsert([{ key, messageTimestamp: 1767225600, messageStubType: 2, messageStubParameters: ["Bad MAC"] } as never]);
  sock.upsert([{ key: { ...key, id: "3EB0AFTER" }, message: { conversation: "next" } }]);
  await until(() => h.rt.deps.db.prepare("SELECT 1 FROM messages WHERE network_message_id = '3EB0AFTER'").get(), "the next message");
  expect((await row())[0].body).toBe("the real text");
});

test("the owner's own undecryptable message (from another device) and group stubs leave nothing behind", async () => {
  const h = await harness({ driver: { watchdogMs: 0 } });
  open.push(h);
  const { sock } = await h.linkedSession();
  sock.upsert([{ key: { remoteJid: "919800000078@s.whatsapp.net", fromMe: true, id: "3EB0MINE" }, messageStubType: 2, messageStubParameters: ["Bad MAC"] } as never]);
  sock.upsert([{ key: { remoteJid: "120363025246125888@g.us", fromMe: false, id: "3EB0GRP", participant: "919800000079@s.whatsapp.net" }, messageStubType: 2 } as never]);
  sock.upsert([{ key: { remoteJid: "919800000080@s.whatsapp.net", fromMe: false, id: "3EB0MARK" }, message: { conversation: "marker" } }]);
  await until(() => h.rt.deps.db.prepare("SELECT 1 FROM messages WHERE network_message_id = '3EB0MARK'").get(), "the marker");
  expect(await h.rt.deps.db.prepare("SELECT count(*) AS n FROM messages").get()).toEqual({ n: 1 });
});
