import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TCPSocketListener } from "bun";
import { ManualClock } from "../../../src/clock.ts";
import { loadConfig } from "../../../src/config.ts";
import type { AppEvent } from "../../../src/events/bus.ts";
import { silentLogger } from "../../../src/log.ts";
import { initAuthCreds } from "baileys";
import { serializeCreds } from "../../../src/network/baileys/auth-state.ts";
import { BaileysDriver } from "../../../src/network/baileys/driver.ts";
import type { DriverEvent } from "../../../src/network/driver.ts";
import { encryptCredentials } from "../../../src/modules/sessions/credentials.ts";
import { createRuntime, type Runtime } from "../../../src/runtime.ts";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

// The real baileys socket against a loopback "network" that accepts TCP connections and hangs
// up at once: nothing leaves the machine, every attempt is counted.

const KEY = "11".repeat(32);
// no maxAttempts: the default, a linked session never stops retrying
const BACKOFF = { baseMs: 20, maxMs: 80, linkingMaxAttempts: 3, jitter: 0.2 };
let attempts = 0;
let listener: TCPSocketListener<undefined>;
let rt: Runtime;
let ws: TestWorkspace;
const driverEvents: DriverEvent[] = [];
const appEvents: AppEvent[] = [];

beforeAll(async () => {
  listener = Bun.listen<undefined>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        attempts++;
        s.end();
      },
      data() {},
    },
  });
  const dataDir = mkdtempSync(join(tmpdir(), "parley-baileys-"));
  const driver = new BaileysDriver({
    log: silentLogger,
    waWebSocketUrl: `ws://127.0.0.1:${listener.port}/ws/chat`,
    connectTimeoutMs: 2_000,
    backoff: BACKOFF,
  });
  driver.onEvent((e) => driverEvents.push(e));
  const clock = new ManualClock(new Date());
  rt = await createRuntime(loadConfig({ network: "baileys", dataDir, logLevel: "silent" }), silentLogger, {
    dbPath: ":memory:",
    clock,
    network: driver,
    secrets: { jwtSecret: "s".repeat(48), credentialKey: KEY },
  });
  rt.deps.bus.subscribe((e) => appEvents.push(e));
  ws = await createWorkspace({ ...rt, clock } as unknown as TestApp);
});
afterAll(async () => {
  await rt.close();
  listener.stop(true);
});

async function call(method: string, path: string, body?: unknown) {
  const res = await rt.app.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: { authorization: `Bearer ${ws.owner.token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: res.status, body: (await res.json()) as any };
}

const dropsOf = (id: string) => driverEvents.filter((e): e is Extract<DriverEvent, { type: "disconnected" }> => e.type === "disconnected" && e.sessionId === id);

/** Each scheduled retry lies in its backoff step: [ceiling * (1 - jitter), ceiling]. */
function expectBackoff(delays: number[]) {
  delays.forEach((d, i) => {
    const ceiling = Math.min(BACKOFF.maxMs, BACKOFF.baseMs * 2 ** i);
    expect(d).toBeGreaterThanOrEqual(Math.floor(ceiling * (1 - BACKOFF.jitter)));
    expect(d).toBeLessThanOrEqual(ceiling);
  });
}

test("offline linking: connect answers 502, retries back off then stop, the session ends disconnected with a reason", async () => {
  const id = (await call("POST", "/api/v1/chatapp", { name: "real" })).body.data.id;
  const before = attempts;
  const r = await call("POST", `/api/v1/chatapp/${id}/connect`);
  expect(r.status).toBe(502);
  expect(r.body.code).toBe("CHATAPP_UNAVAILABLE");

  const st = (await call("GET", `/api/v1/chatapp/${id}/status`)).body.data;
  expect(st).toMatchObject({ status: "disconnected", connected: false, lastDisconnectReason: "connection_lost" });

  const drops = dropsOf(id);
  const retries = drops.filter((e) => e.willReconnect);
  expect(retries).toHaveLength(BACKOFF.linkingMaxAttempts);
  expectBackoff(retries.map((e) => e.retryInMs!));
  expect(drops.at(-1)).toMatchObject({ reason: "connection_lost", willReconnect: false });
  expect(drops.at(-1)!.detail).toContain("gave up");
  // one first attempt plus the retries, and no more afterwards: no reconnect storm
  expect(attempts - before).toBe(1 + BACKOFF.linkingMaxAttempts);
  await Bun.sleep(BACKOFF.maxMs * 3);
  expect(attempts - before).toBe(1 + BACKOFF.linkingMaxAttempts);
  expect(appEvents.filter((e) => e.event === "session_disconnected" && e.data.sessionId === id).map((e) => e.data)).toEqual([
    { sessionId: id, reason: "connection_lost" },
  ]);
});

test("offline restart: a linked session keeps retrying at the capped interval, keeps its link, and is disconnected once", async () => {
  const id = (await call("POST", "/api/v1/chatapp", { name: "linked" })).body.data.id;
  // a session linked before the restart: status connected, credentials of a linked device stored
  const creds = initAuthCreds();
  Object.assign(creds, { me: { id: "919812345678:7@s.whatsapp.net" }, account: { details: Buffer.from([1]) } });
  const sealed = encryptCredentials(KEY, id, serializeCreds(creds));
  await rt.deps.db.prepare("UPDATE chat_sessions SET status = 'connected', phone_number = '919812345678', credentials = ? WHERE id = ?").run(sealed, id);

  const before = attempts;
  await rt.services.start();
  // well past the point where the delay reached the cap (20, 40, then 80 every time)
  const wanted = 12; // more than the 10 retries after which the driver used to give up
  const deadline = Date.now() + 15_000;
  while (dropsOf(id).length < wanted && Date.now() < deadline) await Bun.sleep(10);

  const drops = dropsOf(id);
  expect(drops.length).toBeGreaterThanOrEqual(wanted);
  // it never gives up
  expect(drops.every((e) => e.willReconnect)).toBe(true);
  const delays = drops.map((e) => e.retryInMs!);
  expectBackoff(delays);
  // at the cap: every retry waits about maxMs (jittered down at most by `jitter`), one attempt each
  for (const d of delays.slice(3)) expect(d).toBeGreaterThanOrEqual(Math.floor(BACKOFF.maxMs * (1 - BACKOFF.jitter)));
  // no storm: one attempt per scheduled retry (plus the first), never more
  expect(attempts - before).toBeGreaterThanOrEqual(drops.length);
  expect(attempts - before).toBeLessThanOrEqual(drops.length + 1);
  const row = await rt.deps.db.prepare("SELECT status, credentials, last_disconnect_reason AS reason, phone_number AS phone FROM chat_sessions WHERE id = ?").get(id) as any;
  // a transient failure never unlinks: the link stays for the next attempt
  expect(row).toMatchObject({ status: "disconnected", reason: "connection_lost", phone: "919812345678" });
  expect(row.credentials).toStartWith("v1:");
  expect(appEvents.filter((e) => e.event === "session_disconnected" && e.data.sessionId === id)).toHaveLength(1);

  // the user can stop the retries: disconnect is allowed while they run, and nothing follows it
  expect((await call("POST", `/api/v1/chatapp/${id}/disconnect`)).status).toBe(200);
  await Bun.sleep(20); // a handshake already on the wire lands
  const stopped = attempts;
  await Bun.sleep(BACKOFF.maxMs * 3);
  expect(attempts).toBe(stopped);
});

test("the driver refuses an unusable address and idle sessions with NetworkError (502 at the API)", async () => {
  const driver = new BaileysDriver({ log: silentLogger, waWebSocketUrl: "tcp://127.0.0.1:1" });
  await expect(driver.connect("x", { credentials: null })).rejects.toMatchObject({ name: "NetworkError" });
  await expect(driver.send("x", { to: "919800000001", type: "text", text: "hi" })).rejects.toMatchObject({ code: "not_connected" });
  await expect(driver.requestPairingCode("x", "919800000001")).rejects.toMatchObject({ code: "not_pending" });
});

test("a stored link the driver cannot read: connect answers 502 and the link is dropped, so the next connect pairs anew", async () => {
  const id = (await call("POST", "/api/v1/chatapp", { name: "garbled" })).body.data.id;
  await rt.deps.db.prepare("UPDATE chat_sessions SET credentials = ? WHERE id = ?").run(encryptCredentials(KEY, id, "{not json"), id);
  const r = await call("POST", `/api/v1/chatapp/${id}/connect`);
  expect(r.status).toBe(502);
  expect(r.body.message).toContain("unreadable");
  const row = await rt.deps.db.prepare("SELECT status, credentials, last_disconnect_reason AS reason FROM chat_sessions WHERE id = ?").get(id);
  expect(row).toEqual({ status: "disconnected", credentials: null, reason: "error" });
});
