import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { proto } from "baileys";
import { diagnoseNetwork, formatReport } from "../../src/ops/network-doctor.ts";
import { BUN, ROOT } from "../helpers/process.ts";

// `parley doctor network`: the offline answers (name resolution, refused, TLS, an edge's 503,
// silence) and the online path against a local TLS WebSocket server with a self-signed
// certificate that answers the client's hello with a server hello.

const CERT = join(ROOT, "test/fixtures/tls/cert.pem");
const KEY = join(ROOT, "test/fixtures/tls/key.pem");

const hellos: Uint8Array[] = [];
/** A stand-in for the network's edge: TLS, the upgrade, and a server hello as the first frame. */
const edge = Bun.serve<{ silent: boolean }>({
  hostname: "127.0.0.1",
  port: 0,
  tls: { cert: Bun.file(CERT), key: Bun.file(KEY) },
  fetch(req, server) {
    if (new URL(req.url).pathname === "/busy") return new Response("busy", { status: 503 });
    if (req.headers.get("origin") !== "https://web.whatsapp.com") return new Response("origin", { status: 403 });
    return server.upgrade(req, { data: { silent: new URL(req.url).pathname === "/silent" } }) ? undefined : new Response("upgrade", { status: 400 });
  },
  websocket: {
    message(ws, data) {
      hellos.push(typeof data === "string" ? new TextEncoder().encode(data) : new Uint8Array(data));
      if (ws.data.silent) return;
      const hello = proto.HandshakeMessage.encode({ serverHello: { ephemeral: crypto.getRandomValues(new Uint8Array(32)), static: new Uint8Array(48), payload: new Uint8Array(64) } }).finish();
      const frame = new Uint8Array(3 + hello.length);
      frame.set([(hello.length >> 16) & 0xff, (hello.length >> 8) & 0xff, hello.length & 0xff]);
      frame.set(hello, 3);
      ws.send(frame);
    },
  },
});
/** Plain ws:// for the refusal cases (no certificate to trust in-process). */
const plain = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req, server) {
    if (new URL(req.url).pathname === "/busy") return new Response("busy", { status: 503, headers: { "retry-after": "30" } });
    return server.upgrade(req) ? undefined : new Response("upgrade", { status: 400 });
  },
  websocket: { message() {} },
});
afterAll(() => {
  edge.stop(true);
  plain.stop(true);
});

/** Runs the CLI (asynchronously: the stand-in server answers from this process). */
async function doctor(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "doctor", "network", ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

test("offline: a name that does not resolve says so, and nothing after it runs", async () => {
  const r = await diagnoseNetwork("wss://web.whatsapp.invalid/ws/chat", { timeoutMs: 5000 });
  expect(r.reachable).toBe(false);
  expect(r.steps.map((s) => [s.step, s.ok])).toEqual([["dns", false], ["tls", null], ["upgrade", null], ["frame", null]]);
  expect(r.steps[0]!.reason).toBe("name_resolution");
  expect(r.summary).toStartWith("the network is NOT reachable from this host: name resolution failed");
});

test("offline: connection refused, and an untrusted certificate (TLS intercepted or CA certificates missing), each named", async () => {
  const refused = await diagnoseNetwork("wss://127.0.0.1:1/ws/chat", { timeoutMs: 5000 });
  expect(refused.reachable).toBe(false);
  expect(refused.steps[1]).toMatchObject({ step: "tls", ok: false, reason: "refused" });
  expect(refused.summary).toContain("connection refused");
  // the edge's self-signed certificate is not trusted by this process
  const untrusted = await diagnoseNetwork(`wss://127.0.0.1:${edge.port}/ws/chat`, { timeoutMs: 5000 });
  expect(untrusted.reachable).toBe(false);
  expect(untrusted.steps[1]).toMatchObject({ step: "tls", ok: false, reason: "tls_untrusted" });
  expect(untrusted.summary).toContain("TLS failed: the server's certificate is not trusted");
});

test("an edge that refuses the upgrade (503) and one that upgrades but never answers the hello", async () => {
  const busy = await diagnoseNetwork(`ws://127.0.0.1:${plain.port}/busy`, { timeoutMs: 5000 });
  expect(busy.reachable).toBe(false);
  expect(busy.steps[2]).toMatchObject({ step: "upgrade", ok: false, reason: "upgrade_refused" });
  expect(busy.steps[2]!.detail).toContain("HTTP 503");
  const silent = await diagnoseNetwork(`ws://127.0.0.1:${plain.port}/ws/chat`, { timeoutMs: 300 });
  expect(silent.reachable).toBe(false);
  expect(silent.steps.map((s) => [s.step, s.ok])).toEqual([["dns", true], ["tls", true], ["upgrade", true], ["frame", false]]);
  expect(silent.steps[3]).toMatchObject({ reason: "no_frame" });
  expect(formatReport(silent)).toContain("FAIL  frame");
});

test("online (the CLI): TLS with a trusted certificate, the upgrade, and a server hello as the first frame: exit 0, --json for scripts", async () => {
  const before = hellos.length;
  const r = await doctor(["--json", "--timeout-ms", "5000", "--wa-web-socket-url", `wss://localhost:${edge.port}/ws/chat`], { NODE_EXTRA_CA_CERTS: CERT });
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  const report = JSON.parse(r.out);
  expect(report.reachable).toBe(true);
  expect(report.steps.map((s: any) => [s.step, s.ok])).toEqual([["dns", true], ["tls", true], ["upgrade", true], ["frame", true]]);
  expect(report.steps[1].detail).toContain("TLS works: TLSv1.3");
  expect(report.steps[3].detail).toContain("a server hello");
  expect(report.summary).toStartWith("the network is reachable from this host");
  // the client spoke first, as the network's web client does: the noise header, then a ClientHello
  const hello = hellos[before]!;
  expect([...hello.subarray(0, 4)]).toEqual([87, 65, 6, 3]);
  const len = (hello[4]! << 16) | (hello[5]! << 8) | hello[6]!;
  expect(proto.HandshakeMessage.decode(hello.subarray(7, 7 + len)).clientHello?.ephemeral?.length).toBe(32);
  // the same without trusting the certificate: exit 1, one plain line at the end
  const untrusted = await doctor(["--timeout-ms", "5000", "--wa-web-socket-url", `wss://localhost:${edge.port}/ws/chat`]);
  expect(untrusted.code).toBe(1);
  expect(untrusted.out.trim().split("\n").at(-1)).toStartWith("the network is NOT reachable from this host: TLS failed");
  // a bad address is a usage error
  const bad = await doctor(["--wa-web-socket-url", "https://example.com/"]);
  expect(bad.code).toBe(2);
  expect(bad.err).toContain("waWebSocketUrl");
}, 30_000);
