import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import WS from "ws";
import { signToken, tokenKeys } from "../../../src/auth/tokens.ts";
import { MEMBERSHIP_RECHECK_MS } from "../../../src/modules/realtime/hub.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { eventually, linkSession, newSession, statusOf } from "../sessions/helpers.ts";

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

describe("per-workspace isolation (docs/api.md)", () => {
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

/** Resolves with the close code of an open client. */
const closeCode = (c: Client) => new Promise<number>((r) => (c.ws.onclose = (e) => r(e.code)));

describe("membership (a removed member stops hearing at once)", () => {
  test("a removed member's socket is closed (4003) at the next event and receives nothing; others still do", async () => {
    const agent = await a.member("agent");
    const gone = await connect(`ws://${base}/api/ws?token=${agent.token}`);
    const stays = await connect(`ws://${base}/api/ws?token=${a.owner.token}`);
    const closed = closeCode(gone);
    expect((await t.request("DELETE", `/api/team/members/${agent.userId}`, { token: a.owner.token })).status).toBe(200);
    t.clock.advance(MEMBERSHIP_RECHECK_MS); // the socket's last check is now due
    const id = await newSession(t, a);
    expect((await t.request("POST", `/api/v1/chatapp/${id}/connect`, { token: a.owner.token })).status).toBe(200);
    expect(await closed).toBe(4003);
    expect(gone.messages).toEqual([]);
    await eventually(() => expect(stays.messages.map((m) => m.event)).toContain("session_qr"));
    stays.ws.close();
  });

  test("without any event, the keepalive round closes the socket of a removed member", async () => {
    const viewer = await a.member("viewer");
    const c = await connect(`ws://${base}/api/ws?token=${viewer.token}`);
    const closed = closeCode(c);
    await t.deps.db.prepare("DELETE FROM users WHERE id = ?").run(viewer.userId);
    t.clock.advance(MEMBERSHIP_RECHECK_MS);
    expect(await closed).toBe(4003); // wsPingIntervalMs is 1 s here
    expect(c.messages).toEqual([]);
  });
});

describe("QR codes go to those who may link a phone (the manage permission)", () => {
  test("admins get session_qr; agents and viewers get the status events but never a QR, a demoted admin neither", async () => {
    const w = await createWorkspace(t);
    const admin = await w.member("admin");
    const demoted = await w.member("admin");
    const open = (token: string) => connect(`ws://${base}/api/ws?token=${token}`);
    const ca = await open(admin.token);
    const cd = await open(demoted.token);
    const cg = await open((await w.member("agent")).token);
    const cv = await open((await w.member("viewer")).token);
    const names = (c: Client) => c.messages.map((m) => m.event);
    const first = await newSession(t, w);
    await linkSession(t, w, first, "919833333333");
    for (const c of [ca, cd, cg, cv]) await eventually(() => expect(names(c)).toContain("session_connected"));
    expect(names(ca)).toEqual(["session_status", "session_qr", "session_connected", "session_status"]);
    expect(names(cd)).toEqual(names(ca));
    for (const c of [cg, cv]) expect(names(c)).toEqual(["session_status", "session_connected", "session_status"]);

    // the role is read fresh for every QR: a demotion takes effect at the next one
    expect((await t.request("PATCH", `/api/team/members/${demoted.userId}`, { token: w.owner.token, body: { role: "viewer" } })).status).toBe(200);
    const second = await newSession(t, w);
    await linkSession(t, w, second, "919844444444");
    expect((await statusOf(t, w, second)).status).toBe("connected");
    for (const c of [ca, cd]) await eventually(() => expect(c.messages.filter((m) => m.data.sessionId === second && m.event === "session_status")).toHaveLength(2));
    expect(ca.messages.filter((m) => m.data.sessionId === second).map((m) => m.event)).toContain("session_qr");
    expect(cd.messages.filter((m) => m.data.sessionId === second).map((m) => m.event)).not.toContain("session_qr");
    for (const c of [ca, cd, cg, cv]) c.ws.close();
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
