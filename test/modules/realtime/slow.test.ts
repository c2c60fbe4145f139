// Real-time sockets whose client does not read: each one's unwritten events are bounded, the
// socket is closed with 4009 (the dashboard reloads on it) instead of growing the server or
// losing events in silence, one user cannot open sockets without end, and /metrics counts both.
import { afterAll, beforeAll, expect, test } from "bun:test";
import WS from "ws";
import { connect } from "node:net";
import { websocketOptions } from "../../../src/server.ts";
import { CLOSE_TOO_SLOW } from "../../../src/modules/realtime/hub.ts";
import { TOO_FAR_BEHIND } from "../../../web/src/api/live.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { until } from "../../helpers/crash.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

const METRICS = "metrics-token-for-slow-sockets";
let t: TestApp;
let base: string;
let ws: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp({ config: { wsMaxBufferedBytes: 64 * 1024, wsMaxSocketsPerUser: 3, metricsToken: METRICS } });
  t.app.listen({ hostname: "127.0.0.1", port: 0, websocket: websocketOptions(t.deps.config) });
  base = `ws://127.0.0.1:${t.app.server!.port}/api/ws`;
  ws = await createWorkspace(t);
});
afterAll(async () => {
  await t.app.stop(true);
  await t.close();
});

/** Opens a socket and waits for the server's `ready`. */
function open(token: string): Promise<{ sock: WS; closed: Promise<number>; seen: () => number }> {
  const sock = new WS(`${base}?token=${token}`);
  let seen = 0;
  const closed = new Promise<number>((resolve) => sock.on("close", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    sock.on("message", (m) => {
      seen++;
      if (JSON.parse(String(m)).event === "ready") resolve({ sock, closed, seen: () => seen });
    });
    sock.on("unexpected-response", (_req, res) => reject(new Error(`refused ${res.statusCode}`)));
    sock.on("error", reject);
  });
}

/**
 * A WebSocket client on a bare TCP socket that stops reading after the handshake, as a client
 * that never reads does. `drain()` reads again and resolves with the close code the server sent.
 */
async function nonReader(token: string, port: number): Promise<{ drain(): Promise<number> }> {
  const sock = connect(port, "127.0.0.1");
  await new Promise<void>((r) => sock.once("connect", () => r()));
  sock.write(`GET /api/ws?token=${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  let buf = Buffer.alloc(0);
  let closeCode: number | null = null;
  let onClose: ((code: number) => void) | null = null;
  let handshaken = false;
  const ready = new Promise<void>((resolve) => {
    sock.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (!handshaken) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        handshaken = true;
        buf = buf.subarray(end + 4);
        resolve();
      }
      // frames from the server are not masked: opcode, length (7 bits, or 16/64 bits), payload
      for (;;) {
        if (buf.length < 2) break;
        let len = buf[1]! & 0x7f;
        let at = 2;
        if (len === 126) {
          if (buf.length < 4) break;
          len = buf.readUInt16BE(2);
          at = 4;
        } else if (len === 127) {
          if (buf.length < 10) break;
          len = Number(buf.readBigUInt64BE(2));
          at = 10;
        }
        if (buf.length < at + len) break;
        if ((buf[0]! & 0x0f) === 0x8) {
          closeCode = buf.readUInt16BE(at);
          onClose?.(closeCode);
        }
        buf = buf.subarray(at + len);
      }
    });
  });
  await ready;
  sock.pause();
  return {
    drain: () =>
      new Promise<number>((resolve) => {
        if (closeCode !== null) return resolve(closeCode);
        onClose = (code) => {
          sock.destroy();
          resolve(code);
        };
        sock.resume();
      }),
  };
}

/** One event of the workspace, about `bytes` long once serialised. */
async function publish(bytes: number): Promise<void> {
  await t.deps.db.tx(() => t.deps.bus.publish(ws.id, "session_status", { sessionId: "s", status: "connected", pad: "x".repeat(bytes) }));
}

const scrape = async () => (await t.app.handle(new Request("http://localhost/metrics", { headers: { authorization: `Bearer ${METRICS}` } }))).text();
const sample = (text: string, name: string) => Number(text.match(new RegExp(`^${name.replace(/[{}"]/g, "\\$&")} (\\d+)`, "m"))?.[1] ?? 0);

test("a socket that does not read is closed with 4009 once it is past its bound; a reading one on the same workspace gets every event", async () => {
  const before = await scrape();
  const slow = await nonReader(ws.owner.token, t.app.server!.port!);
  const fast = await open(ws.owner.token);
  const N = 600;
  for (let i = 0; i < N; i++) {
    await publish(60_000);
    if (i % 4 === 0) await Bun.sleep(1); // let the fast client read: its bursts stay under the hard bound
  }
  await until("the fast client got every event", () => fast.seen() === N + 1);
  expect(await slow.drain()).toBe(CLOSE_TOO_SLOW);
  expect(fast.sock.readyState).toBe(WS.OPEN);
  const after = await scrape();
  expect(sample(after, 'parley_realtime_sockets_closed_total{reason="slow"}') - sample(before, 'parley_realtime_sockets_closed_total{reason="slow"}')).toBe(1);
  expect(sample(after, "parley_realtime_events_dropped_total")).toBeGreaterThan(0);
  fast.sock.close();
  await fast.closed;
}, 60_000);

test("the dashboard reloads on the code the server closes a slow socket with", () => {
  expect(TOO_FAR_BEHIND).toBe(CLOSE_TOO_SLOW);
});

test("one user holds at most wsMaxSocketsPerUser sockets: the next upgrade is refused with 429; another user is not affected", async () => {
  const mine = [await open(ws.owner.token), await open(ws.owner.token), await open(ws.owner.token)];
  await expect(open(ws.owner.token)).rejects.toThrow("refused 429");
  const member = await ws.member("agent");
  const theirs = await open(member.token);
  expect(sample(await scrape(), 'parley_realtime_sockets_closed_total{reason="per_user_cap"}')).toBe(1);
  // a closed one frees its place
  mine[0]!.sock.close();
  await mine[0]!.closed;
  await until("the server forgot the closed socket", async () => {
    try {
      mine[0] = await open(ws.owner.token);
      return true;
    } catch {
      return false;
    }
  });
  for (const c of [...mine, theirs]) {
    c.sock.close();
    await c.closed;
  }
});
