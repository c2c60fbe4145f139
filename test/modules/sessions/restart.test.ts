import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { signToken, tokenKeys } from "../../../src/auth/tokens.ts";
import { systemClock } from "../../../src/clock.ts";
import { loadConfig } from "../../../src/config.ts";
import { expectDataOnEngine, seedWorkspace, serverData } from "../../helpers/crash.ts";
import type { ChildServer } from "../../helpers/process.ts";
import { eventually } from "./helpers.ts";

async function call(s: ChildServer, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(s.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

test("a connected session comes back connected after the server restarts; a pending QR does not survive", async () => {
  const data = await serverData("parley-restart-");
  const dataDir = data.dataDir;
  let s = await data.spawn();
  try {
    const { workspaceId, ownerId } = await seedWorkspace(data.store(), "Acme");
    // the secret the server generated at its first start, where it keeps it
    const secret = await data.jwtSecret();
    await data.closeStore();
    const token = await signToken(tokenKeys(loadConfig({ dataDir }), secret), systemClock, { sub: ownerId, tenant: workspaceId, role: "owner", typ: "access" }, 600);

    const id = (await call(s, token, "POST", "/api/v1/chatapp", { name: "main" })).body.data.id;
    const pending = (await call(s, token, "POST", "/api/v1/chatapp", { name: "pending" })).body.data.id;
    expect((await call(s, token, "POST", `/api/v1/chatapp/${id}/connect`)).body.data.status).toBe("qr_pending");
    expect((await call(s, token, "POST", `/api/v1/chatapp/${pending}/connect`)).body.data.status).toBe("qr_pending");
    expect((await call(s, token, "POST", `/api/sim/sessions/${id}/scan`, { phoneNumber: "919812345678" })).status).toBe(200);
    await eventually(async () => expect((await call(s, token, "GET", `/api/v1/chatapp/${id}/status`)).body.data.status).toBe("connected"));

    expect(await s.stop()).toBe(0);
    // what survives: the row (encrypted link) and the sim network's linked devices
    const row = (await data.store().prepare<{ status: string; credentials: string }>("SELECT status, credentials FROM chat_sessions WHERE id = ?").get(id))!;
    await data.closeStore();
    expect(row.status).toBe("connected");
    expect(row.credentials).toStartWith("v1:");
    expect(existsSync(join(dataDir, "sim-network.json"))).toBe(true);

    s = await data.spawn();
    const st = await call(s, token, "GET", `/api/v1/chatapp/${id}/status`);
    expect(st.body.data).toMatchObject({ status: "connected", phoneNumber: "919812345678", connected: true });
    // really back on the network: it takes inbound messages (only a connected sim session does)
    await eventually(async () =>
      expect((await call(s, token, "POST", `/api/sim/sessions/${id}/inbound`, { from: "919800000001", text: "hi" })).status).toBe(200),
    );
    expect((await call(s, token, "GET", `/api/v1/chatapp/${pending}/status`)).body.data.status).toBe("disconnected");
    expect(s.logs()).not.toContain('"level":"error"');
    await expectDataOnEngine(data);
  } finally {
    await data.closeStore();
    await s.stop();
    await data.close();
  }
}, 60_000);
