import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { proto } from "baileys";
import { openOperator, ownerToken } from "../../cli/operator.ts";
import { seedWorkspace } from "../modules/sessions/operator-fixtures.ts";
import { BUN, ROOT, spawnServer } from "../helpers/process.ts";

// The compiled binary's real-network path: built like test/cli/binary.test.ts, started with
// `--network baileys` (the real driver, Bun's TLS and WebSocket client inside the binary),
// pointed at addresses that answer deterministically on any machine: a closed port, a name
// that never resolves (.invalid), and a local TLS WebSocket server with a self-signed
// certificate. No phone and no internet are needed; nothing may crash.

const CERT = join(ROOT, "test/fixtures/tls/cert.pem");
const KEY = join(ROOT, "test/fixtures/tls/key.pem");
let bin: string;
let dir: string;

const edge = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  tls: { cert: Bun.file(CERT), key: Bun.file(KEY) },
  fetch: (req, server) => (server.upgrade(req) ? undefined : new Response("upgrade", { status: 400 })),
  websocket: {
    message(ws) {
      const hello = proto.HandshakeMessage.encode({ serverHello: { ephemeral: crypto.getRandomValues(new Uint8Array(32)) } }).finish();
      ws.send(new Uint8Array([0, 0, hello.length, ...hello]));
    },
  },
});
afterAll(() => edge.stop(true));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "parley-binnet-"));
  const out = join(mkdtempSync(join(tmpdir(), "parley-build-")), "parley");
  const build = Bun.spawn([BUN, "build", "--compile", join(ROOT, "src/main.ts"), "--outfile", out], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if ((await build.exited) !== 0) throw new Error(await new Response(build.stderr).text());
  bin = join(dir, "parley");
  copyFileSync(out, bin);
}, 180_000);

async function run(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([bin, ...args], { cwd: dir, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

test(
  "serve --network baileys: connect answers the offline error in the envelope, the server keeps serving and stops cleanly",
  async () => {
    const dataDir = join(dir, "data");
    const s = await spawnServer({
      dataDir,
      cmd: [bin],
      cwd: dir,
      // the last --network wins: the real driver, at a port where nothing listens; the bundled version (no fetch)
      args: ["--network", "baileys", "--wa-web-socket-url", "ws://127.0.0.1:1/ws/chat", "--wa-version", "bundled"],
    });
    try {
      const { workspaceId } = seedWorkspace(dataDir, "Offline Inc");
      const op = await openOperator({ dataDir, url: s.url } as never);
      const token = await ownerToken(op, workspaceId);
      await op.db.close();
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(s.url + path, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as any };
      };
      const created = await call("POST", "/api/v1/chatapp", { name: "real" });
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      // no sim routes on the real network
      expect((await call("POST", `/api/sim/sessions/${id}/scan`, { phoneNumber: "919800000001" })).status).toBe(404);
      const connect = await call("POST", `/api/v1/chatapp/${id}/connect`);
      expect(connect.status).toBe(502);
      expect(connect.body).toMatchObject({ success: false, code: "CHATAPP_UNAVAILABLE" });
      expect(connect.body.message).toContain("connection_lost");
      const status = await call("GET", `/api/v1/chatapp/${id}/status`);
      expect(status.body.data).toMatchObject({ status: "disconnected", lastDisconnectReason: "connection_lost" });
      // a number check needs a connected session: the same envelope
      const check = await call("POST", `/api/v1/chatapp/${id}/check`, { phones: ["919800000001"] });
      expect(check.status).toBe(502);
      expect(check.body.code).toBe("CHATAPP_UNAVAILABLE");
      expect((await fetch(`${s.url}/health`)).status).toBe(200);
    } finally {
      expect(await s.stop()).toBe(0);
    }
    expect(s.logs()).not.toMatch(/uncaught|unhandled|panic|segmentation/i);
  },
  120_000,
);

test(
  "doctor network from the binary: offline answers (name resolution, connection refused) exit 1; a reachable TLS WebSocket endpoint exits 0",
  async () => {
    const noName = await run(["doctor", "network", "--json", "--wa-web-socket-url", "wss://web.whatsapp.invalid/ws/chat"]);
    expect(noName.code).toBe(1);
    expect(JSON.parse(noName.out)).toMatchObject({ reachable: false, steps: [{ step: "dns", ok: false, reason: "name_resolution" }, {}, {}, {}] });
    const refused = await run(["doctor", "network", "--wa-web-socket-url", "wss://127.0.0.1:1/ws/chat"]);
    expect(refused.code).toBe(1);
    expect(refused.out.trim().split("\n").at(-1)).toStartWith("the network is NOT reachable from this host: connection refused");
    // the online path through the binary's own TLS and WebSocket client
    const online = await run(["doctor", "network", "--json", "--wa-web-socket-url", `wss://localhost:${edge.port}/ws/chat`], { NODE_EXTRA_CA_CERTS: CERT });
    expect(online.err).toBe("");
    expect(online.code).toBe(0);
    const report = JSON.parse(online.out);
    expect(report.reachable).toBe(true);
    expect(report.steps.map((x: any) => x.ok)).toEqual([true, true, true, true]);
    expect(report.steps[3].detail).toContain("server hello");
  },
  60_000,
);
