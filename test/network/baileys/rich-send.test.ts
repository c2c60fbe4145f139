import { afterAll, beforeAll, expect, test } from "bun:test";
import { harness, until, type Harness } from "./harness.ts";

// Replies, reactions, locations and contact cards, sent through the driver to the scripted socket.

let h: Harness;
let session: Awaited<ReturnType<Harness["linkedSession"]>>;
let question: string;
const contact = "919811113333";

beforeAll(async () => {
  h = await harness({ driver: { watchdogMs: 0 } });
  session = await h.linkedSession();
  session.sock.upsert([{ key: { remoteJid: `${contact}@s.whatsapp.net`, fromMe: false, id: "RICHQ1" }, pushName: "Asha", message: { conversation: "do you deliver?" } }]);
  question = await until(async () => ((await h.rt.deps.db.prepare("SELECT id FROM messages WHERE network_message_id = 'RICHQ1'").get()) as { id: string } | undefined)?.id, "stored");
});
afterAll(async () => {
  await h.rt.close();
});

/** Sends through the API and returns what the socket was given. */
async function send(body: Record<string, unknown>) {
  const before = session.sock.sent.length;
  const r = await h.call("POST", "/api/v1/messages/send", { session_id: session.id, to: contact, ...body });
  expect(r.status).toBe(202);
  await h.rt.deps.jobs.runDue();
  await until(() => session.sock.sent.length > before, "sent");
  return { id: r.body.data.id as string, sent: session.sock.sent[before]! };
}

test("a reply quotes the message: baileys' quoted option with its key and text", async () => {
  const { sent } = await send({ body: "yes, every day", replyTo: question });
  expect(sent.content).toEqual({ text: "yes, every day" });
  expect((sent.opts as any).quoted).toEqual({ key: { remoteJid: `${contact}@s.whatsapp.net`, id: "RICHQ1", fromMe: false }, message: { conversation: "do you deliver?" } });
});

test("a reaction is a reactionMessage on the message's key; an empty emoji takes it back", async () => {
  const { sent } = await send({ type: "reaction", reaction: { messageId: question, emoji: "👍" } });
  expect(sent.content).toEqual({ react: { text: "👍", key: { remoteJid: `${contact}@s.whatsapp.net`, id: "RICHQ1", fromMe: false } } });
  const removed = await send({ type: "reaction", reaction: { messageId: question, emoji: "" } });
  expect((removed.sent.content as any).react.text).toBe("");
});

test("a reaction to our own sent message names it fromMe", async () => {
  const ours = await send({ body: "our offer" });
  const networkId = await until(async () => ((await h.call("GET", `/api/v1/messages/${ours.id}`)).body.data.networkMessageId as string | null), "sent");
  const { sent } = await send({ type: "reaction", reaction: { messageId: ours.id, emoji: "❤️" } });
  expect((sent.content as any).react.key).toEqual({ remoteJid: `${contact}@s.whatsapp.net`, id: networkId, fromMe: true });
});

test("a location is a locationMessage", async () => {
  const { sent } = await send({ type: "location", location: { latitude: 19.076, longitude: 72.8777, name: "Shop", address: "1 Marine Drive, Mumbai" } });
  expect(sent.content).toEqual({ location: { degreesLatitude: 19.076, degreesLongitude: 72.8777, name: "Shop", address: "1 Marine Drive, Mumbai" } });
});

test("a contact card is a contactMessage with a vCard the recipient's app can start a chat from", async () => {
  const { id, sent } = await send({ type: "contact", contact: { name: "Ravi Kumar", phones: ["+91 98111 22222"] }, replyTo: question });
  const card = (sent.content as any).contacts;
  expect(card.displayName).toBe("Ravi Kumar");
  expect(card.contacts[0].vcard).toBe("BEGIN:VCARD\nVERSION:3.0\nFN:Ravi Kumar\nTEL;type=CELL;type=VOICE;waid=919811122222:+919811122222\nEND:VCARD");
  expect((sent.opts as any).quoted.key.id).toBe("RICHQ1");
  const stored = (await h.call("GET", `/api/v1/messages/${id}`)).body.data;
  expect(stored).toMatchObject({ type: "contact", body: "Contact: Ravi Kumar +919811122222", payload: { contacts: [{ name: "Ravi Kumar", phones: ["919811122222"] }] }, replyTo: question });
});

test("received reactions, locations and contact cards are stored and shown", async () => {
  const jid = `${contact}@s.whatsapp.net`;
  session.sock.upsert([
    { key: { remoteJid: jid, fromMe: false, id: "RICHIN1" }, message: { reactionMessage: { key: { remoteJid: jid, fromMe: true, id: "3EB0X" }, text: "🙏" } } },
    { key: { remoteJid: jid, fromMe: false, id: "RICHIN2" }, message: { locationMessage: { degreesLatitude: 12.97, degreesLongitude: 77.59, name: "Home" } } },
    { key: { remoteJid: jid, fromMe: false, id: "RICHIN3" }, message: { contactMessage: { displayName: "Meera", vcard: "BEGIN:VCARD\nVERSION:3.0\nFN:Meera\nTEL;waid=919822233333:+91 98222 33333\nEND:VCARD" } } },
  ]);
  const row = (id: string) => h.rt.deps.db.prepare<{ type: string; body: string; payload: string }>("SELECT type, body, payload FROM messages WHERE network_message_id = ?").get(id);
  const reaction = await until(() => row("RICHIN1"), "reaction");
  expect(reaction.type).toBe("reaction");
  expect(JSON.parse(reaction.payload)).toMatchObject({ emoji: "🙏", messageId: "3EB0X", fromMe: true });
  const location = await until(() => row("RICHIN2"), "location");
  expect(location).toMatchObject({ type: "location", body: "Location: 12.97, 77.59 (Home)" });
  const card = await until(() => row("RICHIN3"), "contact");
  expect(JSON.parse(card.payload).contacts[0]).toMatchObject({ name: "Meera", phones: ["919822233333"] });
});
