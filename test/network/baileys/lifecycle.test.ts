import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { harness, until, type Harness } from "./harness.ts";

const open: Harness[] = [];
afterAll(async () => {
  for (const h of open) await h.rt.close().catch(() => {});
});

test("watchdog: a socket that hears nothing is closed as lost (408) and reconnected; a chatty one is left alone", async () => {
  const h = await harness({ driver: { watchdogMs: 60 } });
  open.push(h);
  const { id, sock } = await h.linkedSession();
  const quiet = await h.linkedSession();
  // one socket keeps receiving frames, the other goes silent
  const chatter = setInterval(() => sock.ws.emit("message", new Uint8Array([0])), 10);
  const before = h.sockets.length;
  await until(() => quiet.sock.ended.length === 1, "the silent socket ended", 2000);
  clearInterval(chatter);
  expect((quiet.sock.ended[0] as { output: { statusCode: number } }).output.statusCode).toBe(408);
  expect(String(quiet.sock.ended[0])).toContain("no frames");
  expect(sock.ended).toEqual([]);
  // the silent session reconnects with its link
  await until(() => h.sockets.length > before, "a new socket");
  await until(async () => await h.rt.deps.db.prepare("SELECT 1 FROM chat_sessions WHERE id = ? AND status = 'connected'").get(quiet.id), "connected again");
  expect(h.driverEvents.some((e) => e.type === "disconnected" && e.sessionId === quiet.id && e.willReconnect && e.reason === "connection_lost")).toBe(true);
  expect(h.driverEvents.some((e) => e.type === "disconnected" && e.sessionId === id)).toBe(false);
});

test("watchdog: a socket still linking (QR shown, the network quiet while the codes rotate) is left alone", async () => {
  const h = await harness({ driver: { watchdogMs: 40 } });
  open.push(h);
  const id = (await h.call("POST", "/api/v1/chatapp", { name: "pairing" })).body.data.id;
  const connecting = h.call("POST", `/api/v1/chatapp/${id}/connect`);
  const sock = await until(() => h.sockets[0], "socket");
  sock.ev.emit("connection.update", { qr: "2@abc,def,ghi,1" });
  expect((await connecting).status).toBe(200);
  await Bun.sleep(200);
  expect(sock.ended).toEqual([]);
});

test("graceful shutdown: a message the network handed over while shutting down is stored, not acknowledged and lost", async () => {
  const h = await harness({ fileDb: true, driver: { watchdogMs: 0 } });
  const { sock } = await h.linkedSession();
  // the LID lookup takes a while: the message is still inside the driver when the stop begins
  sock.lidLookupMs = 150;
  sock.upsert([{ key: { remoteJid: "201575769710001@lid", fromMe: false, id: "LATE1" }, message: { conversation: "just in time" } }]);
  await h.rt.close();
  // the socket was closed by the stop, and the message reached the database before it closed
  expect(sock.ended.length).toBe(1);
  const db = new Database(join(h.dataDir, "parley.db"), { readonly: true });
  expect(db.query("SELECT phone, body FROM messages WHERE network_message_id = 'LATE1'").get()).toEqual({ phone: "201575769710001@lid", body: "just in time" });
  db.close();
});
