import { afterAll, beforeAll, expect, test } from "bun:test";
import { FakeSocket, harness, until, type Harness } from "./harness.ts";

// The driver's failure handling over the scripted socket, through the whole runtime.

let h: Harness;
beforeAll(async () => {
  h = await harness({ driver: { replacedGuard: { max: 2, windowMs: 60_000 }, watchdogMs: 0 } });
});
afterAll(async () => {
  await h.rt.close();
});

const row = async (id: string) =>
  (await h.rt.deps.db.prepare("SELECT status, last_disconnect_reason AS reason, credentials IS NOT NULL AS linked, phone_number AS phone FROM chat_sessions WHERE id = ?").get(id)) as any;
const dropsOf = (id: string) => h.driverEvents.filter((e) => e.type === "disconnected" && e.sessionId === id) as any[];

test("440 (another client took the link) reconnects with the same link, then ends `replaced` when it loops", async () => {
  const { id, sock } = await h.linkedSession();
  const before = h.sockets.length;
  sock.close(440, "Stream Errored (conflict)");
  // a new socket with the same link, and the session is connected again
  const second = await until(() => (h.sockets.length === before + 1 ? h.last() : undefined), "a reconnect after 440");
  await until(async () => (await row(id)).status === "connected", "connected again");
  expect(dropsOf(id)[0]).toMatchObject({ reason: "connection_lost", willReconnect: true });
  expect(dropsOf(id)[0].detail).toContain("440");
  second.close(440);
  const third = await until(() => (h.sockets.length === before + 2 ? h.last() : undefined), "a second reconnect");
  await until(async () => (await row(id)).status === "connected", "connected again");
  // a third takeover within the window: two clients are fighting over the link, stop
  third.close(440);
  await until(async () => (await row(id)).status === "disconnected" && (await row(id)).reason === "replaced", "ended replaced");
  expect(dropsOf(id).at(-1)).toMatchObject({ reason: "replaced", willReconnect: false });
  expect(dropsOf(id).at(-1).detail).toContain("replaced 2 times");
  // the link is kept (the user can connect again without a QR), and nothing more is attempted
  expect((await row(id))).toMatchObject({ linked: 1, phone: expect.any(String) });
  await Bun.sleep(50);
  expect(h.sockets.length).toBe(before + 2);
});

test("405 without a way to look the version up: its own reason, link kept, no retry", async () => {
  const { id, sock } = await h.linkedSession();
  const before = h.sockets.length;
  sock.close(405, "Connection Failure");
  await until(async () => (await row(id)).status === "disconnected", "disconnected");
  expect((await row(id))).toMatchObject({ reason: "version_rejected", linked: 1 });
  expect(dropsOf(id).at(-1).detail).toContain("waVersion");
  const ev = h.appEvents.filter((e) => e.event === "session_disconnected" && e.data.sessionId === id).map((e) => e.data.reason);
  expect(ev).toEqual(["version_rejected"]);
  await Bun.sleep(50);
  expect(h.sockets.length).toBe(before);
});

test("405: the current version is fetched afresh and tried once; a second 405 ends the session version_rejected", async () => {
  const asked: boolean[] = [];
  const socks: FakeSocket[] = [];
  let autoOpen = true;
  const v = await harness({
    driver: {
      watchdogMs: 0,
      version: async (fresh) => (asked.push(!!fresh), fresh ? [2, 3000, 20 + asked.length] : [2, 3000, 1]),
      makeSocket: (config) => {
        const s = new FakeSocket(config as never);
        socks.push(s);
        if (autoOpen) queueMicrotask(() => s.open());
        return s as never;
      },
    },
  });
  const status = async (id: string) => (await v.rt.deps.db.prepare("SELECT status, last_disconnect_reason AS reason, credentials IS NOT NULL AS linked FROM chat_sessions WHERE id = ?").get(id)) as any;
  try {
    const { id } = await v.linkedSession();
    expect(socks[0]!.config.version).toEqual([2, 3000, 1]);
    socks[0]!.close(405, "Connection Failure");
    await until(() => socks.length === 2, "a retry with a fresh version");
    expect(asked).toEqual([false, true]);
    expect(socks[1]!.config.version).toEqual([2, 3000, 22]);
    await until(async () => (await status(id)).status === "connected", "connected with the fresh version");
    // the retry worked: the session was never reported down
    expect(v.driverEvents.filter((e) => e.type === "disconnected")).toEqual([]);
    // once it opened, a later 405 gets its own single retry again; a 405 of that retry is final
    autoOpen = false;
    socks[1]!.close(405, "Connection Failure");
    await until(() => socks.length === 3, "another retry");
    expect(asked).toEqual([false, true, true]);
    socks[2]!.close(405, "Connection Failure");
    await until(() => v.driverEvents.some((e) => e.type === "disconnected" && !e.willReconnect), "the end");
    // the session manager records driver events in order, asynchronously: wait for the row
    await until(async () => (await status(id)).status === "disconnected", "the session ended");
    expect(await status(id)).toEqual({ status: "disconnected", reason: "version_rejected", linked: 1 });
    expect(v.driverEvents.at(-1)).toMatchObject({ type: "disconnected", reason: "version_rejected", willReconnect: false });
    await Bun.sleep(30);
    expect(socks.length).toBe(3);
  } finally {
    await v.rt.close();
  }
});

test("the retry counter cache outlives the socket; groups, status and newsletters are ignored at the socket", async () => {
  const { sock } = await h.linkedSession();
  const before = h.sockets.length;
  sock.close(428, "Connection Closed");
  const next = await until(() => (h.sockets.length === before + 1 ? h.last() : undefined), "reconnect");
  expect(next.config.msgRetryCounterCache).toBeDefined();
  expect(next.config.msgRetryCounterCache).toBe(sock.config.msgRetryCounterCache);
  next.config.msgRetryCounterCache.set("3EB0X", 3);
  expect(sock.config.msgRetryCounterCache.get("3EB0X")).toBe(3);
  expect(next.config.shouldIgnoreJid("120363025246125888@g.us")).toBe(true);
  expect(next.config.shouldIgnoreJid("status@broadcast")).toBe(true);
  expect(next.config.shouldIgnoreJid("120363144038483540@newsletter")).toBe(true);
  expect(next.config.shouldIgnoreJid("919800000001@s.whatsapp.net")).toBe(false);
});

test("getMessage (the network asks for a message again) reads recent sends from the database, also after a reconnect", async () => {
  const { id, sock } = await h.linkedSession();
  const r = await h.call("POST", "/api/v1/messages/send", { session_id: id, to: "919800000002", type: "text", body: "resend me" });
  expect(r.status).toBe(202);
  await h.rt.deps.jobs.runDue();
  const networkId = await until(
    async () => ((await h.rt.deps.db.prepare("SELECT network_message_id AS n FROM messages WHERE id = ? AND status = 'sent'").get(r.body.data.id)) as any)?.n,
    "sent",
  );
  const before = h.sockets.length;
  sock.close(428);
  const next = await until(() => (h.sockets.length === before + 1 ? h.last() : undefined), "reconnect");
  expect(await next.config.getMessage({ id: networkId, remoteJid: "919800000002@s.whatsapp.net", fromMe: true })).toEqual({ conversation: "resend me" });
  // a driver that never sent it (a restart) still answers from the rows
  await h.rt.deps.db.prepare("UPDATE messages SET network_message_id = 'OLDID' WHERE id = ?").run(r.body.data.id);
  expect(await next.config.getMessage({ id: "OLDID" })).toEqual({ conversation: "resend me" });
  expect(await next.config.getMessage({ id: "UNKNOWN" })).toBeUndefined();
});

test("baileys' logger follows Parley's level", async () => {
  const { BaileysDriver } = await import("../../../src/network/baileys/driver.ts");
  const { silentLogger } = await import("../../../src/log.ts");
  const seen: string[] = [];
  const d = new BaileysDriver({ log: silentLogger, logLevel: "warn", makeSocket: (c) => (seen.push((c.logger as { level: string }).level), { ev: { on() {} }, ws: { on() {} }, end() {} }) as never });
  await d.connect("s1", { credentials: null });
  expect(seen).toEqual(["warn"]);
  await d.shutdown();
});
