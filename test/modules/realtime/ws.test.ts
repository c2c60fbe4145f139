import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import WS from "ws";
import { signToken, tokenKeys } from "../../../src/auth/tokens.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { eventually, linkSession, newSession } from "../sessions/helpers.ts";

interface Client {
  ws: WebSocket;
  messages: { event: string; timestamp: string; data: any }[];
}

let t: TestApp;
let base: string;
let a: TestWorkspace;
let b: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp({ config: { wsPingIntervalMs: 1000 } });
  t.app.listen({ hostname: "127.0.0.1", port: 0 });
  base = `127.0.0.1:${t.app.server!.port}`;
  a = await createWorkspace(t);
  b = await createWorkspace(t);
});
afterAll(async () => {
  await t.app.stop(true);
  await t.close();
});

/** Opens /api/ws and resolves once the server's `ready` arrives. */
function connect(url: string, protocols?: string[]): Promise<Client> {
  const ws = new WebSocket(url, protocols);
  const messages: Client["messages"] = [];
  return new Promise((resolve, reject) => {
    ws.onmessage = (m) => {
      const msg = JSON.parse(String(m.data));
      if (msg.event === "ready") resolve({ ws, messages });
      else messages.push(msg);
    };
    ws.onerror = () => reject(new Error("websocket failed"));
    ws.onclose = (e) => reject(new Error(`closed ${e.code}`));
  });
}

describe("per-workspace isolation (D10)", () => {
  test("a client of workspace A sees A's QR and status events and never B's", async () => {
    const ca = await connect(`ws://${base}/api/ws?token=${a.owner.token}`);
    const cb = await connect(`ws://${base}/api/ws?token=${b.owner.token}`);
    const sa = await newSession(t, a, "a-main");
    const sb = await newSession(t, b, "b-main");
    await linkSession(t, a, sa, "919811111111");
    await linkSession(t, b, sb, "919822222222");
    await eventually(() => expect(ca.messages.some((m) => m.event === "session_connected")).toBe(true));
    await eventually(() => expect(cb.messages.some((m) => m.event === "session_connected")).toBe(true));

    const names = (c: Client) => c.messages.map((m) => m.event);
    expect(names(ca)).toEqual(["session_status", "session_qr", "session_connected", "session_status"]);
    expect(ca.messages.every((m) => m.data.sessionId === sa)).toBe(true);
    expect(cb.messages.every((m) => m.data.sessionId === sb)).toBe(true);
    expect(JSON.stringify(ca.messages)).not.toContain("919822222222");
    expect(JSON.stringify(cb.messages)).not.toContain("919811111111");

    const qr = ca.messages.find((m) => m.event === "session_qr")!;
    expect(Object.keys(qr).sort()).toEqual(["data", "event", "timestamp"]);
    expect(qr.data).toMatchObject({ sessionId: sa, qr: expect.any(String), qrDataUrl: expect.stringMatching(/^data:image\/png;base64,/) });
    expect(Date.parse(qr.data.expiresAt)).toBeGreaterThan(0);
    expect(qr.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(ca.messages.at(-1)!.data).toEqual({ sessionId: sa, status: "connected", phoneNumber: "919811111111", reason: null });
    expect(ca.messages.find((m) => m.event === "session_connected")!.data).toEqual({ sessionId: sa, phone: "+919811111111", status: "connected" });

    // a disconnect reaches A only, with its reason
    await t.request("POST", `/api/v1/chatapp/${sa}/disconnect`, { token: a.owner.token });
    await eventually(() => expect(ca.messages.at(-1)!.data).toMatchObject({ status: "disconnected", reason: "user_request" }));
    expect(names(cb)).toEqual(["session_status", "session_qr", "session_connected", "session_status"]);
    ca.ws.close();
    cb.ws.close();
  });
});

describe("authentication", () => {
  test("the token may come as the subprotocol after `bearer`; the server picks `bearer`", async () => {
    const c = await connect(`ws://${base}/api/ws`, ["bearer", a.owner.token]);
    expect(c.ws.protocol).toBe("bearer");
    c.ws.close();
  });

  test("no token or a bad token: refused before the upgrade with 401 in the envelope", async () => {
    const handshake = { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" };
    const missing = await fetch(`http://${base}/api/ws`, { headers: handshake });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as any).code).toBe("UNAUTHORIZED");
    const bad = await fetch(`http://${base}/api/ws?token=not.a.token`, { headers: handshake });
    expect(bad.status).toBe(401);
    await expect(connect(`ws://${base}/api/ws?token=not.a.token`)).rejects.toThrow();
  });

  test("the socket closes when its token expires", async () => {
    const short = await signToken(tokenKeys(t.deps.config, t.deps.secrets.jwtSecret), t.clock, { sub: a.owner.userId, tenant: a.id, role: "owner", typ: "access" }, 1);
    const c = await connect(`ws://${base}/api/ws?token=${short}`);
    const code = await new Promise<number>((r) => (c.ws.onclose = (e) => r(e.code)));
    expect(code).toBe(4001);
  });
});

describe("keepalive", () => {
  test("the server pings open sockets; an application ping gets a pong", async () => {
    const client = new WS(`ws://${base}/api/ws?token=${a.owner.token}`);
    const pinged = new Promise<void>((r) => client.once("ping", () => r()));
    const pong = new Promise<any>((r) =>
      client.on("message", (m: WS.RawData) => {
        const msg = JSON.parse(String(m));
        if (msg.event === "ready") client.send(JSON.stringify({ event: "ping" }));
        if (msg.event === "pong") r(msg);
      }),
    );
    expect((await pong).data).toEqual({});
    await pinged;
    client.close();
  });
});
