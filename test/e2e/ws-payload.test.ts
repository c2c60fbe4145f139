import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WS_MAX_PAYLOAD } from "../../src/server.ts";
import { BUN, ROOT, spawnServer, type ChildServer } from "../helpers/process.ts";

// Any member may open /api/ws; every message they send is JSON-parsed before the route sees it.
// A message past WS_MAX_PAYLOAD closes the socket (1009) instead of costing the server 16 MB of
// parsing, and the server keeps answering.

let server: ChildServer;
let token: string;

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-ws-payload-"));
  server = await spawnServer({ dataDir, args: ["--captcha", "off"] });
  const ws = Bun.spawnSync(
    [BUN, join(ROOT, "src/main.ts"), "workspaces", "create", "--name", "Acme", "--owner-email", "o@example.com", "--owner-name", "Owner", "--password", "Sturdy-pass-123", "-d", dataDir],
    { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
  );
  expect(ws.exitCode).toBe(0);
  const login = await fetch(`${server.url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "o@example.com", password: "Sturdy-pass-123" }) });
  token = ((await login.json()) as { data: { accessToken: string } }).data.accessToken;
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

function open(): Promise<{ ws: WebSocket; messages: string[]; closed: Promise<number> }> {
  const ws = new WebSocket(`${server.url.replace("http", "ws")}/api/ws?token=${token}`);
  const messages: string[] = [];
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
  ws.addEventListener("message", (e) => messages.push(String(e.data)));
  return new Promise((resolve, reject) => {
    ws.addEventListener("open", () => resolve({ ws, messages, closed }));
    ws.addEventListener("error", reject);
  });
}

test("a ping still gets its pong", async () => {
  const { ws, messages } = await open();
  ws.send(JSON.stringify({ event: "ping" }));
  for (let i = 0; i < 200 && !messages.some((m) => m.includes('"pong"')); i++) await Bun.sleep(10);
  expect(messages.some((m) => m.includes('"pong"'))).toBe(true);
  ws.close();
});

test("a message past the cap closes the socket with 1009; the server answers on", async () => {
  const { ws, closed } = await open();
  const n = 2 * WS_MAX_PAYLOAD;
  ws.send("[".repeat(n) + "]".repeat(n));
  expect(await closed).toBe(1009);
  expect((await fetch(`${server.url}/health`)).status).toBe(200);
});
