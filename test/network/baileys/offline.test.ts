import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../../src/clock.ts";
import { loadConfig } from "../../../src/config.ts";
import { silentLogger } from "../../../src/log.ts";
import { BaileysDriver } from "../../../src/network/baileys/driver.ts";
import type { DriverEvent } from "../../../src/network/driver.ts";
import { createRuntime, type Runtime } from "../../../src/runtime.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import type { TestApp } from "../../helpers/app.ts";

// A loopback "network" that accepts TCP connections and hangs up at once: a real socket, no internet.
let attempts = 0;
let listener: ReturnType<typeof Bun.listen>;
let rt: Runtime;
let clock: ManualClock;
const events: DriverEvent[] = [];

beforeAll(async () => {
  listener = Bun.listen({
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
    dataDir,
    waWebSocketUrl: `ws://127.0.0.1:${listener.port}/ws/chat`,
    connectTimeoutMs: 2_000,
    backoff: { baseMs: 20, maxMs: 80, maxAttempts: 3, jitter: 0.2 },
  });
  driver.onEvent((e) => events.push(e));
  clock = new ManualClock(new Date());
  const config = loadConfig({ network: "baileys", dataDir, logLevel: "silent" });
  rt = await createRuntime(config, silentLogger, { dbPath: ":memory:", clock, network: driver, secrets: { jwtSecret: "s".repeat(48), credentialKey: "11".repeat(32) } });
});
afterAll(async () => {
  await rt.close();
  listener.stop(true);
});

test("offline: connect answers 502, retries back off and stop, the session ends disconnected with a reason", async () => {
  const t = { ...rt, clock } as unknown as TestApp;
  const ws = await createWorkspace(t);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await rt.app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${ws.owner.token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    return { status: res.status, body: (await res.json()) as any };
  };
  const created = await call("POST", "/api/v1/chatapp", { name: "real" });
  const id = created.body.data.id;
  const r = await call("POST", `/api/v1/chatapp/${id}/connect`);
  console.log(r, attempts, events);
});
