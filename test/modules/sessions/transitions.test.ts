import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { AppEvent } from "../../../src/events/bus.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { eventually, linkSession, newSession, recordEvents, statusOf, storedCredentials } from "./helpers.ts";

// Every transition of the session state table (docs/sessions.md) over HTTP on the sim network,
// and every invalid one (409 CONFLICT).

let t: TestApp;
let ws: TestWorkspace;
let events: AppEvent[];
beforeAll(async () => {
  t = await createTestApp();
  events = recordEvents(t);
});
// a workspace per test: the plan limits sessions
beforeEach(async () => {
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

const post = (path: string, body?: unknown) => t.request("POST", path, { token: ws.owner.token, body });
const get = (path: string) => t.request("GET", path, { token: ws.owner.token });
const eventsOf = (id: string, name?: string) => events.filter((e) => e.data.sessionId === id && (!name || e.event === name));

describe("valid transitions", () => {
  test("(none) -> create -> disconnected, phoneNumber null, connected false", async () => {
    const r = await post("/api/v1/chatapp", { name: "front desk" });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ name: "front desk", status: "disconnected", phoneNumber: null, connected: false });
    expect(r.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("disconnected -> connect -> qr_pending; the QR is served and published", async () => {
    const id = await newSession(t, ws);
    const r = await post(`/api/v1/chatapp/${id}/connect`);
    expect(r.status).toBe(200);
    expect(r.body.data.status).toBe("qr_pending");
    expect(typeof r.body.message).toBe("string");
    const qr = await get(`/api/v1/chatapp/${id}/qr`);
    expect(qr.status).toBe(200);
    expect(qr.body.data.qr).toBe(t.sim.currentQr(id)!);
    expect(qr.body.data.qrDataUrl).toStartWith("data:image/png;base64,");
    expect(Date.parse(qr.body.data.expiresAt)).toBeGreaterThan(Date.now());
    expect(eventsOf(id, "session_qr")[0]!.data).toMatchObject({ sessionId: id, qr: qr.body.data.qr, qrDataUrl: qr.body.data.qrDataUrl });
    expect(eventsOf(id, "session_status")[0]!.data).toEqual({ sessionId: id, status: "qr_pending", phoneNumber: null, reason: null });
  });

  test("qr_pending -> connect answers 200 again (idempotent), same pairing", async () => {
    const id = await newSession(t, ws);
    await post(`/api/v1/chatapp/${id}/connect`);
    const first = (await get(`/api/v1/chatapp/${id}/qr`)).body.data.qr;
    const again = await post(`/api/v1/chatapp/${id}/connect`);
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe("qr_pending");
    expect((await get(`/api/v1/chatapp/${id}/qr`)).body.data.qr).toBe(first);
  });

  test("qr_pending -> QR scanned -> connected: phoneNumber set, session_connected with a plus", async () => {
    const id = await newSession(t, ws);
    await linkSession(t, ws, id, "919812345678");
    expect(await statusOf(t, ws, id)).toMatchObject({ id, status: "connected", phoneNumber: "919812345678", connected: true });
    expect(eventsOf(id, "session_connected").map((e) => e.data)).toEqual([{ sessionId: id, phone: "+919812345678", status: "connected" }]);
    expect(eventsOf(id, "session_status").at(-1)!.data).toEqual({ sessionId: id, status: "connected", phoneNumber: "919812345678", reason: null });
    // the link is stored, encrypted
    const sealed = (await storedCredentials(t, id))!;
    expect(sealed).toStartWith("v1:");
    expect(sealed).not.toContain("simcred_");
  });

  test("connected -> disconnect -> disconnected (user_request): credentials wiped, session kept", async () => {
    const id = await newSession(t, ws);
    await linkSession(t, ws, id);
    const r = await post(`/api/v1/chatapp/${id}/disconnect`);
    expect(r.status).toBe(200);
    expect(typeof r.body.message).toBe("string");
    expect(await statusOf(t, ws, id)).toMatchObject({ status: "disconnected", phoneNumber: null, connected: false, lastDisconnectReason: "user_request" });
    expect((await storedCredentials(t, id))).toBeNull();
    expect(eventsOf(id, "session_disconnected").map((e) => e.data)).toEqual([{ sessionId: id, reason: "user_request" }]);
    // unlinked: connecting again needs a new QR
    const again = await post(`/api/v1/chatapp/${id}/connect`);
    expect(again.body.data.status).toBe("qr_pending");
  });

  test("qr_pending -> disconnect -> disconnected (user_request), the pairing stops", async () => {
    const id = await newSession(t, ws);
    await post(`/api/v1/chatapp/${id}/connect`);
    const r = await post(`/api/v1/chatapp/${id}/disconnect`);
    expect(r.status).toBe(200);
    expect((await statusOf(t, ws, id)).status).toBe("disconnected");
    expect(t.sim.stateOf(id)).toBeUndefined();
    expect(eventsOf(id, "session_disconnected").at(-1)!.data).toEqual({ sessionId: id, reason: "user_request" });
  });

  test("qr_pending -> pairing-code answers an 8-character code", async () => {
    const id = await newSession(t, ws);
    await post(`/api/v1/chatapp/${id}/connect`);
    const r = await post(`/api/v1/chatapp/${id}/pairing-code`, { phoneNumber: "919812345678" });
    expect(r.status).toBe(200);
    expect(r.body.data.code).toMatch(/^[A-Z0-9]{8}$/);
  });

  test("connected -> network logout -> disconnected (logged_out), credentials wiped", async () => {
    const id = await newSession(t, ws);
    await linkSession(t, ws, id);
    expect((await post(`/api/sim/sessions/${id}/logout`)).status).toBe(200);
    await eventually(async () => expect((await statusOf(t, ws, id)).status).toBe("disconnected"));
    expect((await statusOf(t, ws, id)).lastDisconnectReason).toBe("logged_out");
    await eventually(async () => expect((await storedCredentials(t, id))).toBeNull());
    expect(eventsOf(id, "session_disconnected").map((e) => e.data)).toEqual([{ sessionId: id, reason: "logged_out" }]);
  });

  test("connected -> banned -> disconnected (banned), credentials wiped", async () => {
    const id = await newSession(t, ws);
    await linkSession(t, ws, id);
    await post(`/api/sim/sessions/${id}/logout`, { reason: "banned" });
    await eventually(async () => expect((await statusOf(t, ws, id)).lastDisconnectReason).toBe("banned"));
    await eventually(async () => expect((await storedCredentials(t, id))).toBeNull());
  });

  test("connected -> replaced -> disconnected (replaced); the link survives, connect reconnects without a QR", async () => {
    const id = await newSession(t, ws);
    await linkSession(t, ws, id, "919800000042");
    await post(`/api/sim/sessions/${id}/logout`, { reason: "replaced" });
    await eventually(async () => expect((await statusOf(t, ws, id)).lastDisconnectReason).toBe("replaced"));
    expect((await storedCredentials(t, id))).not.toBeNull();
    const r = await post(`/api/v1/chatapp/${id}/connect`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: "connected", phoneNumber: "919800000042" });
    expect(eventsOf(id, "session_qr")).toHaveLength(1); // only the first pairing showed one
  });

  test("connected -> transient drop -> disconnected (connection_lost) -> reconnects by itself -> connected", async () => {
    const id = await newSession(t, ws);
    await linkSession(t, ws, id);
    t.sim.drop(id, 20);
    await eventually(() => expect(eventsOf(id, "session_disconnected").map((e) => e.data.reason)).toEqual(["connection_lost"]));
    await eventually(() => expect(eventsOf(id, "session_connected")).toHaveLength(2));
    expect(await statusOf(t, ws, id)).toMatchObject({ status: "connected", connected: true, phoneNumber: "919812345678" });
    expect((await storedCredentials(t, id))).not.toBeNull();
  });

  test("DELETE a connected session: disconnected (unlinked) first, then gone", async () => {
    const id = await newSession(t, ws);
    await linkSession(t, ws, id);
    const r = await t.request("DELETE", `/api/v1/chatapp/${id}`, { token: ws.owner.token });
    expect(r.status).toBe(200);
    expect(eventsOf(id, "session_disconnected").map((e) => e.data)).toEqual([{ sessionId: id, reason: "user_request" }]);
    expect(t.sim.stateOf(id)).toBeUndefined();
    expect((await get(`/api/v1/chatapp/${id}/status`)).status).toBe(404);
    expect((await t.request("DELETE", `/api/v1/chatapp/${id}`, { token: ws.owner.token })).status).toBe(404);
  });

  test("DELETE a disconnected session removes it without events", async () => {
    const id = await newSession(t, ws);
    expect((await t.request("DELETE", `/api/v1/chatapp/${id}`, { token: ws.owner.token })).status).toBe(200);
    expect(eventsOf(id)).toEqual([]);
    expect((await get(`/api/v1/chatapp/${id}/status`)).status).toBe(404);
  });
});

describe("invalid transitions answer 409 CONFLICT and change nothing", () => {
  test("connect on connected", async () => {
    const id = await newSession(t, ws);
    await linkSession(t, ws, id);
    const r = await post(`/api/v1/chatapp/${id}/connect`);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("CONFLICT");
    expect((await statusOf(t, ws, id)).status).toBe("connected");
  });

  test("disconnect on disconnected", async () => {
    const id = await newSession(t, ws);
    const r = await post(`/api/v1/chatapp/${id}/disconnect`);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("CONFLICT");
    expect(eventsOf(id)).toEqual([]);
  });

  test("QR on disconnected and on connected", async () => {
    const id = await newSession(t, ws);
    expect((await get(`/api/v1/chatapp/${id}/qr`)).status).toBe(409);
    await linkSession(t, ws, id);
    const r = await get(`/api/v1/chatapp/${id}/qr`);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("CONFLICT");
  });

  test("pairing code on disconnected and on connected", async () => {
    const id = await newSession(t, ws);
    expect((await post(`/api/v1/chatapp/${id}/pairing-code`, { phoneNumber: "919812345678" })).status).toBe(409);
    await linkSession(t, ws, id);
    expect((await post(`/api/v1/chatapp/${id}/pairing-code`, { phoneNumber: "919812345678" })).status).toBe(409);
  });

  test("scan on a session that shows no QR", async () => {
    const id = await newSession(t, ws);
    const r = await post(`/api/sim/sessions/${id}/scan`, { phoneNumber: "919812345678" });
    expect(r.status).toBe(409);
    expect((await statusOf(t, ws, id)).status).toBe("disconnected");
  });
});

test("qr_pending -> the network gives up after its QR rotations -> disconnected (pairing_timeout)", async () => {
  const quick = await createTestApp({ sim: { qrRotateMs: 10, qrMaxRotations: 3 } });
  try {
    const w = await createWorkspace(quick);
    const seen = recordEvents(quick);
    const id = await newSession(quick, w);
    await quick.request("POST", `/api/v1/chatapp/${id}/connect`, { token: w.owner.token });
    await eventually(async () => expect((await statusOf(quick, w, id)).status).toBe("disconnected"));
    expect((await statusOf(quick, w, id)).lastDisconnectReason).toBe("pairing_timeout");
    const qrs = seen.filter((e) => e.event === "session_qr").map((e) => e.data.qr);
    expect(qrs).toHaveLength(3);
    expect(new Set(qrs).size).toBe(3); // each rotation is a new code
    expect(seen.filter((e) => e.event === "session_disconnected").map((e) => e.data)).toEqual([{ sessionId: id, reason: "pairing_timeout" }]);
    expect((await quick.request("GET", `/api/v1/chatapp/${id}/qr`, { token: w.owner.token })).status).toBe(409);
  } finally {
    await quick.close();
  }
});
