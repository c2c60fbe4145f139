import { afterAll, beforeAll, expect, test } from "bun:test";
import { RESTRICTION_PAUSE_MS } from "../../../src/modules/messages/send-pause.ts";
import { harness, until, type Harness } from "./harness.ts";

// Server rejections after a send (baileys' bad ack: messages.update with status ERROR and the code).

let h: Harness;
beforeAll(async () => {
  h = await harness({ driver: { watchdogMs: 0 } });
});
afterAll(async () => {
  await h.rt.close();
});

const message = async (id: string) => (await h.rt.deps.db.prepare("SELECT status, error_code AS code, error_message AS error, network_message_id AS nid FROM messages WHERE id = ?").get(id)) as any;

async function sendAndWait(sessionId: string, body: string) {
  const r = await h.call("POST", "/api/v1/messages/send", { session_id: sessionId, to: "919800001111", type: "text", body });
  expect(r.status).toBe(202);
  await h.rt.deps.jobs.runDue();
  await until(async () => (await message(r.body.data.id))?.status === "sent", "sent");
  return r.body.data.id as string;
}

const badAck = (nid: string, ...params: string[]) => ({
  key: { remoteJid: "919800001111@s.whatsapp.net", fromMe: true, id: nid },
  update: { status: 0, messageStubParameters: params },
});

test("a rejection that overtakes the commit of the send is applied a moment later", async () => {
  const { onRejected } = await import("../../../src/modules/messages/network-events.ts");
  const { id } = await h.linkedSession();
  const mid = await sendAndWait(id, "raced");
  const nid = (await message(mid)).nid;
  // as if the ack arrived while the send was still being committed
  await h.rt.deps.db.prepare("UPDATE messages SET network_message_id = NULL WHERE id = ?").run(mid);
  onRejected(h.rt.deps, { sessionId: id, networkMessageId: nid, code: "479", restricted: false, detail: "rejected" }, 30);
  expect((await message(mid)).status).toBe("sent");
  await h.rt.deps.db.prepare("UPDATE messages SET network_message_id = ? WHERE id = ?").run(nid, mid);
  await until(async () => (await message(mid)).status === "failed", "failed on the second look");
});

test("479: the message fails with the code and message_failed; the queue is not paused", async () => {
  const { id, sock } = await h.linkedSession();
  const mid = await sendAndWait(id, "first");
  sock.ev.emit("messages.update", [badAck((await message(mid)).nid, "479")]);
  await until(async () => (await message(mid)).status === "failed", "failed");
  expect((await message(mid))).toMatchObject({ code: "rejected_479" });
  expect((await message(mid)).error).toContain("479");
  const failed = h.appEvents.find((e) => e.event === "message_failed" && e.data.messageId === mid)!;
  expect(failed.data.error).toMatchObject({ code: "rejected_479" });
  expect(await h.rt.deps.db.prepare("SELECT send_paused_until AS until FROM chat_sessions WHERE id = ?").get(id)).toEqual({ until: null });
});

test("463 (restricted): the message fails and the session's queue pauses (in its row) until the restriction window passes", async () => {
  const { id, sock } = await h.linkedSession();
  const mid = await sendAndWait(id, "first");
  sock.ev.emit("messages.update", [badAck((await message(mid)).nid, "463")]);
  await until(async () => (await message(mid)).status === "failed", "failed");
  expect((await message(mid)).code).toBe("rejected_463");
  const pause = await h.rt.deps.db.prepare("SELECT send_paused_until AS until, send_pause_reason AS reason FROM chat_sessions WHERE id = ?").get(id) as any;
  expect(pause).toEqual({ until: h.clock.now().getTime() + RESTRICTION_PAUSE_MS, reason: "restricted_463" });

  // the sender honours it: the next message stays queued, nothing reaches the network
  const sentBefore = sock.sent.length;
  const next = await h.call("POST", "/api/v1/messages/send", { session_id: id, to: "919800001111", type: "text", body: "second" });
  await h.rt.deps.jobs.runDue();
  await Bun.sleep(20);
  await h.rt.deps.jobs.runDue();
  expect((await message(next.body.data.id)).status).toBe("queued");
  expect(sock.sent.length).toBe(sentBefore);
  // when the window has passed, the queue goes on by itself
  h.clock.advance(RESTRICTION_PAUSE_MS + 1_000);
  await h.rt.deps.jobs.runDue();
  await until(async () => (await message(next.body.data.id)).status === "sent", "sent after the pause");
});

