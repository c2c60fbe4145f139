import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signToken, tokenKeys } from "../../../src/auth/tokens.ts";
import { systemClock } from "../../../src/clock.ts";
import { loadConfig } from "../../../src/config.ts";
import { spawnServer } from "../../helpers/process.ts";
import { seedWorkspace } from "../sessions/operator-fixtures.ts";

test("a graceful stop closes open WebSockets (1001) instead of waiting for the clients to leave", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-ws-stop-"));
  const s = await spawnServer({ dataDir });
  try {
    const { workspaceId, ownerId } = seedWorkspace(dataDir);
    const secret = (JSON.parse(readFileSync(join(dataDir, "secrets.json"), "utf8")) as { jwtSecret: string }).jwtSecret;
    const token = await signToken(tokenKeys(loadConfig({ dataDir }), secret), systemClock, { sub: ownerId, tenant: workspaceId, role: "owner", typ: "access" }, 600);
    const ws = new WebSocket(`${s.url.replace(/^http/, "ws")}/api/ws?token=${token}`);
    await new Promise<void>((resolve, reject) => {
      ws.onmessage = (m) => JSON.parse(String(m.data)).event === "ready" && resolve();
      ws.onerror = () => reject(new Error("websocket failed"));
    });
    const closed = new Promise<number>((r) => (ws.onclose = (e) => r(e.code)));
    expect(await s.stop()).toBe(0);
    expect(await closed).toBe(1001);
  } finally {
    await s.stop();
  }
}, 30_000);
