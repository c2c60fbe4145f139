import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config.ts";
import { silentLogger } from "../../../src/log.ts";
import { BaileysDriver } from "../../../src/network/baileys/driver.ts";
import { NetworkError, type DriverEvent } from "../../../src/network/driver.ts";
import { createRuntime } from "../../../src/runtime.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { eventually, linkSession, newSession } from "../sessions/helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let id: string;
const driverEvents: DriverEvent[] = [];
beforeAll(async () => {
  t = await createTestApp();
  t.sim.onEvent((e) => driverEvents.push(e));
  ws = await createWorkspace(t);
  id = await newSession(t, ws, "sim");
  await linkSession(t, ws, id, "919812345678");
});
afterAll(() => t.close());

const post = (path: string, body?: unknown, token = ws.owner.token) => t.request("POST", path, { token, body });

describe("inbound", () => {
  test("a contact's message becomes the driver's inbound event (for the messaging module)", async () => {
    const r = await post(`/api/sim/sessions/${id}/inbound`, { from: "919800000001", text: "hello" });
    expect(r.status).toBe(200);
    const networkMessageId = r.body.data.networkMessageId;
    const e = await eventually(() => {
      const found = driverEvents.find((x) => x.type === "inbound" && x.message.networkMessageId === networkMessageId);
      expect(found).toBeDefined();
      return found as Extract<DriverEvent, { type: "inbound" }>;
    });
    expect(e.sessionId).toBe(id);
    expect(e.message).toMatchObject({ from: "919800000001", type: "text", text: "hello" });
  });

  test("media carries its URL", async () => {
    const r = await post(`/api/sim/sessions/${id}/inbound`, { from: "919800000001", type: "image", text: "caption", mediaUrl: "https://example.com/a.jpg" });
    expect(r.status).toBe(200);
    await eventually(() =>
      expect(driverEvents.some((x) => x.type === "inbound" && x.message.mediaUrl === "https://example.com/a.jpg" && x.message.type === "image")).toBe(true),
    );
  });

  test("validation names the field", async () => {
    for (const [body, field] of [
      [{ from: "919800000001" }, "text"],
      [{ from: "+91", text: "x" }, "from"],
      [{ from: "919800000001", type: "image" }, "mediaUrl"],
      [{ from: "919800000001", type: "sticker", text: "x" }, "type"],
    ] as const) {
      const r = await post(`/api/sim/sessions/${id}/inbound`, body);
      expect(r.status).toBe(400);
      expect(r.body.errors[field]).toBeDefined();
    }
  });
});

describe("receipts and failures", () => {
  test("a receipt names a message the sim network carried; unknown ids are 404", async () => {
    const { networkMessageId } = await t.sim.send(id, { to: "919800000001", type: "text", text: "out" });
    for (const status of ["delivered", "read"] as const) {
      const r = await post(`/api/sim/sessions/${id}/receipt`, { messageId: networkMessageId, status });
      expect(r.status).toBe(200);
    }
    const receipts = driverEvents.filter((e) => e.type === "receipt" && e.networkMessageId === networkMessageId);
    expect(receipts.map((e) => (e as any).status)).toEqual(["delivered", "read"]);
    expect((await post(`/api/sim/sessions/${id}/receipt`, { messageId: "NOPE", status: "read" })).status).toBe(404);
    expect((await post(`/api/sim/sessions/${id}/receipt`, { messageId: networkMessageId, status: "seen" })).body.errors.status).toBeDefined();
  });

  test("fail: the next sends fail with the code, then sending works again", async () => {
    const r = await post(`/api/sim/sessions/${id}/fail`, { count: 2, code: "rate_limited" });
    expect(r.status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const err = await t.sim.send(id, { to: "919800000001", type: "text", text: "x" }).catch((e) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.code).toBe("rate_limited");
    }
    expect((await t.sim.send(id, { to: "919800000001", type: "text", text: "x" })).networkMessageId).toBeString();
    expect((await post(`/api/sim/sessions/${id}/fail`, { count: 0 })).body.errors.count).toBeDefined();
  });
});

describe("state, tenancy and permissions", () => {
  test("inbound, logout and fail need a session that is live on the network: 409", async () => {
    const idle = await newSession(t, ws, "idle");
    expect((await post(`/api/sim/sessions/${idle}/inbound`, { from: "919800000001", text: "x" })).status).toBe(409);
    expect((await post(`/api/sim/sessions/${idle}/logout`)).status).toBe(409);
    expect((await post(`/api/sim/sessions/${idle}/fail`, { count: 1 })).status).toBe(409);
    expect((await post(`/api/sim/sessions/${idle}/logout`, { reason: "vanished" })).body.errors.reason).toBeDefined();
  });

  test("another workspace's session is 404 on every sim route; a viewer is 403", async () => {
    const other = await createWorkspace(t);
    const routes: [string, unknown][] = [
      ["scan", { phoneNumber: "919812345678" }],
      ["inbound", { from: "919800000001", text: "x" }],
      ["receipt", { messageId: "X", status: "read" }],
      ["logout", {}],
      ["fail", { count: 1 }],
    ];
    for (const [action, body] of routes) {
      const r = await post(`/api/sim/sessions/${id}/${action}`, body, other.owner.token);
      expect([action, r.status]).toEqual([action, 404]);
    }
    const viewer = await ws.member("viewer");
    expect((await post(`/api/sim/sessions/${id}/inbound`, { from: "919800000001", text: "x" }, viewer.token)).status).toBe(403);
  });
});

test("the sim routes do not exist on the real network", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-nosim-"));
  const rt = await createRuntime(loadConfig({ network: "baileys", dataDir, logLevel: "silent" }), silentLogger, {
    dbPath: ":memory:",
    network: new BaileysDriver({ log: silentLogger }),
    secrets: { jwtSecret: "s".repeat(48), credentialKey: "00".repeat(32) },
  });
  try {
    const res = await rt.app.handle(new Request(`http://localhost/api/sim/sessions/${id}/scan`, { method: "POST" }));
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).code).toBe("NOT_FOUND");
  } finally {
    await rt.close();
  }
});
