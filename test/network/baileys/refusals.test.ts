import { afterAll, expect, test } from "bun:test";
import { silentLogger } from "../../../src/log.ts";
import { BaileysDriver } from "../../../src/network/baileys/driver.ts";
import type { DriverEvent } from "../../../src/network/driver.ts";
import { harness, until, type Harness } from "./harness.ts";

// Two ways the network turns a session away that used to end badly: a stored link it keeps
// refusing (500 bad session, retried forever) and an edge that refuses the WebSocket upgrade
// (HTTP 503, reported as a timeout after connectTimeoutMs).

const open: Harness[] = [];
afterAll(async () => {
  for (const h of open) await h.rt.close().catch(() => {});
});

const row = async (h: Harness, id: string) =>
  (await h.rt.deps.db.prepare("SELECT status, last_disconnect_reason AS reason, credentials IS NOT NULL AS linked, phone_number AS phone FROM chat_sessions WHERE id = ?").get(id)) as any;

test("500 bad session: retried a bounded number of times in a row, then the session ends bad_session, unlinked, telling to pair again", async () => {
  const h = await harness({ driver: { watchdogMs: 0, badSessionMax: 3 } });
  open.push(h);
  const { id } = await h.linkedSession();
  const first = h.sockets.length;
  // each new socket opens (the harness' linked sockets do) and is refused again at once
  for (let i = 0; i < 3; i++) {
    await until(() => h.sockets.length === first + i && h.last(), "socket");
    await Bun.sleep(1);
    h.last().close(500, "Stream Errored (bad-session)");
    if (i < 2) await until(() => h.sockets.length === first + i + 1, `retry ${i + 1}`);
  }
  await until(async () => (await row(h, id)).reason === "bad_session", "ended bad_session");
  expect(await row(h, id)).toEqual({ status: "disconnected", reason: "bad_session", linked: 0, phone: null });
  const drops = h.driverEvents.filter((e) => e.type === "disconnected" && e.sessionId === id) as Extract<DriverEvent, { type: "disconnected" }>[];
  expect(drops.slice(0, 2).every((e) => e.willReconnect && e.reason === "connection_lost")).toBe(true);
  expect(drops.at(-1)).toMatchObject({ reason: "bad_session", willReconnect: false });
  expect(drops.at(-1)!.detail).toContain("pair the session again");
  await Bun.sleep(60);
  expect(h.sockets.length).toBe(first + 2);
  // the next connect pairs anew (a QR), not with the refused link
  const connecting = h.call("POST", `/api/v1/chatapp/${id}/connect`);
  const pairing = await until(() => (h.sockets.length === first + 3 ? h.last() : undefined), "a new socket");
  expect(pairing.config.auth.creds.me).toBeUndefined();
  pairing.ev.emit("connection.update", { qr: "2@abc,def,ghi,1" });
  expect((await connecting).body.data.status).toBe("qr_pending");
});

test("scripted socket: an upgrade answered 503 closes the socket at once as edge_refused, and the retry waits at least the edge's Retry-After", async () => {
  const h = await harness({ driver: { watchdogMs: 0, backoff: { baseMs: 5, maxMs: 20, jitter: 0 } } });
  open.push(h);
  const { id, sock } = await h.linkedSession();
  sock.ws.emit("unexpected-response", {}, { statusCode: 503, headers: { "retry-after": "1" } });
  expect(sock.ended.length).toBe(1);
  const drop = await until(() => h.driverEvents.find((e) => e.type === "disconnected" && e.sessionId === id) as Extract<DriverEvent, { type: "disconnected" }> | undefined, "drop");
  expect(drop).toMatchObject({ reason: "edge_refused", willReconnect: true, retryInMs: 1000 });
  // the session manager records driver events in order, asynchronously: wait for the row
  await until(async () => (await row(h, id)).status === "disconnected", "recorded");
  expect(await row(h, id)).toMatchObject({ status: "disconnected", reason: "edge_refused", linked: 1 });
});

test("the real baileys socket against an edge answering 503: edge_refused long before the connect timeout, backed off, then connect answers 502 with the reason", async () => {
  let upgrades = 0;
  const edge = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => (upgrades++, new Response("service unavailable", { status: 503 })),
  });
  const events: DriverEvent[] = [];
  const driver = new BaileysDriver({
    log: silentLogger,
    waWebSocketUrl: `ws://127.0.0.1:${edge.port}/ws/chat`,
    // without the fix every attempt waited this long and was reported as a timeout (408)
    connectTimeoutMs: 20_000,
    backoff: { baseMs: 10, maxMs: 40, linkingMaxAttempts: 2, jitter: 0 },
  });
  driver.onEvent((e) => events.push(e));
  try {
    const started = performance.now();
    await driver.connect("edge", { credentials: null });
    const end = await until(() => events.find((e) => e.type === "disconnected" && !e.willReconnect) as Extract<DriverEvent, { type: "disconnected" }> | undefined, "gave up", 15_000);
    expect(performance.now() - started).toBeLessThan(10_000);
    const drops = events.filter((e) => e.type === "disconnected") as Extract<DriverEvent, { type: "disconnected" }>[];
    expect(drops.map((e) => e.reason)).toEqual(["edge_refused", "edge_refused", "edge_refused"]);
    expect(drops.slice(0, 2).map((e) => e.retryInMs)).toEqual([10, 20]);
    expect(end.detail).toContain("HTTP 503");
    expect(upgrades).toBe(3);
  } finally {
    await driver.shutdown();
    edge.stop(true);
  }
});
