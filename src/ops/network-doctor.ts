import { lookup } from "node:dns/promises";
import { isIP, connect as tcpConnect, type Socket } from "node:net";
import { connect as tlsConnect, type TLSSocket } from "node:tls";

// `parley doctor network`: can this host reach the messaging network at all? Four steps, each
// timed, the first failure named in one plain line: name resolution, the TCP connection and
// TLS, the WebSocket upgrade, and the first frame the server answers the client's hello with.
// Runs without a phone or a session; baileys is used only for its protocol constants.

export type StepName = "dns" | "tls" | "upgrade" | "frame";

export interface DoctorStep {
  step: StepName;
  /** null: not run (an earlier step failed, or not needed) */
  ok: boolean | null;
  ms?: number;
  detail: string;
  /** the failure's kind, for scripts: name_resolution, refused, timeout, unreachable, reset, tls_untrusted, tls_failed, upgrade_refused, no_frame, ... */
  reason?: string;
}

export interface DoctorReport {
  url: string;
  reachable: boolean;
  /** one line: what works and what does not */
  summary: string;
  steps: DoctorStep[];
}

export const DEFAULT_NETWORK_URL = "wss://web.whatsapp.com/ws/chat";
/** The origin the network's web client sends (baileys' DEFAULT_ORIGIN). */
const ORIGIN = "https://web.whatsapp.com";

class StepError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const NAME_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "ENODATA", "ESERVFAIL", "ECONNREFUSED_DNS"]);
const CERT_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME|HOSTNAME_MISMATCH/;

/** A socket-level error in plain words, with its kind. */
export function classify(err: unknown, during: "dns" | "connect" | "tls" | "upgrade"): StepError {
  if (err instanceof StepError) return err;
  const e = err as { code?: string; message?: string };
  const code = e?.code ?? "";
  const msg = e?.message ?? String(err);
  if (during === "dns" || NAME_CODES.has(code)) {
    return new StepError("name_resolution", `name resolution failed (${code || msg}): no DNS answer for the host; check /etc/resolv.conf or the host's DNS server`);
  }
  if (code === "ECONNREFUSED") return new StepError("refused", `connection refused (${code}): nothing accepts connections there, or a firewall rejects them`);
  if (code === "ETIMEDOUT" || code === "ESOCKETTIMEDOUT") return new StepError("timeout", `no answer (${code}): a firewall may be dropping the traffic`);
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "EADDRNOTAVAIL") return new StepError("unreachable", `no route to the host (${code}): the host has no way out to the internet`);
  if (code === "ECONNRESET" || code === "EPIPE") return new StepError("reset", `the connection was cut (${code}): a firewall or proxy on the way closed it`);
  if (CERT_CODES.test(code) || CERT_CODES.test(msg.toUpperCase().replace(/ /g, "_"))) {
    return new StepError("tls_untrusted", `TLS failed: the server's certificate is not trusted (${code || msg}: ${msg}); something on the way intercepts TLS, or the system's CA certificates are missing`);
  }
  if (during === "tls") return new StepError("tls_failed", `TLS failed (${code || "handshake"}: ${msg})`);
  return new StepError("failed", `${msg}${code ? ` (${code})` : ""}`);
}

function withTimeout<T>(ms: number, what: string, run: (done: (v: T) => void, fail: (e: unknown) => void) => () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let cleanup = () => {};
    const timer = setTimeout(() => {
      cleanup();
      reject(new StepError("timeout", `no answer within ${ms} ms while ${what}: a firewall may be dropping the traffic`));
    }, ms);
    cleanup = run(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        cleanup();
        reject(e);
      },
    );
  });
}

/** The client's first message: the noise protocol header and a ClientHello with a fresh ephemeral key, framed as the web client frames it. */
async function clientHello(): Promise<{ bytes: Uint8Array; decodeServerHello(frame: Uint8Array): boolean }> {
  const { Curve, NOISE_WA_HEADER, proto } = await import("baileys");
  const keys = Curve.generateKeyPair();
  const hello = proto.HandshakeMessage.encode({ clientHello: { ephemeral: keys.public } }).finish();
  const out = new Uint8Array(NOISE_WA_HEADER.length + 3 + hello.length);
  out.set(NOISE_WA_HEADER, 0);
  const n = NOISE_WA_HEADER.length;
  out[n] = (hello.length >>> 16) & 0xff;
  out[n + 1] = (hello.length >>> 8) & 0xff;
  out[n + 2] = hello.length & 0xff;
  out.set(hello, n + 3);
  return {
    bytes: out,
    decodeServerHello(frame) {
      try {
        if (frame.length < 4) return false;
        const len = (frame[0]! << 16) | (frame[1]! << 8) | frame[2]!;
        const msg = proto.HandshakeMessage.decode(frame.subarray(3, 3 + len));
        return !!msg.serverHello?.ephemeral?.length;
      } catch {
        return false;
      }
    },
  };
}

/**
 * Runs the four steps against `url` (the network's WebSocket address, or a stand-in) and says
 * whether the network is reachable. Each step is bounded by `timeoutMs`. Never throws.
 */
export async function diagnoseNetwork(url: string, o: { timeoutMs?: number } = {}): Promise<DoctorReport> {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const steps: DoctorStep[] = [];
  const skip = (step: StepName, detail = "not run") => steps.push({ step, ok: null, detail });
  let parsed: URL;
  try {
    parsed = new URL(url);
    if (parsed.protocol !== "wss:" && parsed.protocol !== "ws:") throw new Error("must be a ws:// or wss:// URL");
  } catch (err) {
    const detail = `not a WebSocket URL: ${url} (${(err as Error).message})`;
    return { url, reachable: false, summary: detail, steps: [{ step: "dns", ok: false, detail, reason: "bad_url" }] };
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const secure = parsed.protocol === "wss:";
  const port = Number(parsed.port || (secure ? 443 : 80));
  const done = (): DoctorReport => {
    const failed = steps.find((s) => s.ok === false);
    const reachable = !failed && steps.every((s) => s.ok !== false) && steps.some((s) => s.step === "frame" && s.ok);
    const working = steps.filter((s) => s.ok).map((s) => s.step);
    const summary = reachable
      ? `the network is reachable from this host: ${steps.map((s) => s.detail.split(":")[0]).join("; ")}`
      : `the network is NOT reachable from this host: ${failed?.detail ?? "no answer"}${working.length ? ` (worked: ${working.join(", ")})` : ""}`;
    return { url, reachable, summary, steps };
  };

  // 1. name resolution
  let address = host;
  let t = performance.now();
  if (isIP(host)) {
    steps.push({ step: "dns", ok: true, ms: 0, detail: `no name to resolve: ${host} is an address` });
  } else {
    try {
      const found = await withTimeout<{ address: string }[]>(timeoutMs, "resolving the name", (ok, fail) => {
        lookup(host, { all: true }).then(ok, fail);
        return () => {};
      });
      if (!found.length) throw Object.assign(new Error("no addresses"), { code: "ENODATA" });
      address = found[0]!.address;
      steps.push({ step: "dns", ok: true, ms: ms(t), detail: `name resolved: ${host} is ${found.map((a) => a.address).slice(0, 3).join(", ")}` });
    } catch (err) {
      const e = err instanceof StepError && err.reason === "timeout" ? new StepError("name_resolution", `name resolution failed: ${err.message}`) : classify(err, "dns");
      steps.push({ step: "dns", ok: false, ms: ms(t), detail: e.message, reason: e.reason });
      skip("tls"), skip("upgrade"), skip("frame");
      return done();
    }
  }

  // 2. the connection, and TLS on it
  t = performance.now();
  try {
    const detail = await withTimeout<string>(timeoutMs, secure ? "connecting and negotiating TLS" : "connecting", (ok, fail) => {
      let sock: Socket | TLSSocket;
      if (secure) {
        let connected = false;
        const s = tlsConnect({ host: address, port, servername: isIP(host) ? undefined : host, ALPNProtocols: ["http/1.1"] });
        s.once("connect", () => (connected = true));
        s.once("secureConnect", () => {
          const cert = s.getPeerCertificate();
          ok(`TLS works: ${s.getProtocol()} with ${address}:${port}, certificate for ${cert?.subject?.CN ?? "?"} issued by ${cert?.issuer?.CN ?? cert?.issuer?.O ?? "?"}`);
          s.end();
        });
        s.once("error", (e) => fail(classify(e, connected ? "tls" : "connect")));
        sock = s;
      } else {
        const s = tcpConnect({ host: address, port });
        s.once("connect", () => {
          ok(`TCP connection made with ${address}:${port} (no TLS: ws://)`);
          s.end();
        });
        s.once("error", (e) => fail(classify(e, "connect")));
        sock = s;
      }
      return () => sock.destroy();
    });
    steps.push({ step: "tls", ok: true, ms: ms(t), detail });
  } catch (err) {
    const e = classify(err, "connect");
    steps.push({ step: "tls", ok: false, ms: ms(t), detail: e.message, reason: e.reason });
    skip("upgrade"), skip("frame");
    return done();
  }

  // 3 and 4. the WebSocket upgrade (the client baileys uses), then the server's answer to the hello
  t = performance.now();
  const hello = await clientHello();
  const { default: WebSocket } = await import("ws");
  let upgradedAt: number | null = null;
  try {
    const frame = await withTimeout<Uint8Array>(timeoutMs, "waiting for the WebSocket upgrade and the first frame", (ok, fail) => {
      const ws = new WebSocket(url, { origin: ORIGIN, handshakeTimeout: timeoutMs });
      ws.on("unexpected-response", (_req: unknown, res: { statusCode?: number }) =>
        fail(new StepError("upgrade_refused", `the server refused the WebSocket upgrade with HTTP ${res?.statusCode ?? "?"} (an edge turning connections away, or a proxy in the way)`)),
      );
      ws.on("open", () => {
        upgradedAt = performance.now();
        ws.send(hello.bytes);
      });
      ws.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => {
        const bytes = Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data);
        ok(bytes);
      });
      ws.on("close", (code: number, reason: Buffer) =>
        fail(new StepError(upgradedAt === null ? "upgrade_failed" : "no_frame", upgradedAt === null ? `the WebSocket closed before the upgrade (${code})` : `the server closed the WebSocket without answering the hello (${code}${reason?.length ? ` ${reason}` : ""})`)),
      );
      ws.on("error", (e: unknown) => fail(classify(e, "upgrade")));
      return () => {
        try {
          ws.terminate();
        } catch {
          // already closed
        }
      };
    });
    const upgradeMs = Math.round((upgradedAt ?? performance.now()) - t);
    steps.push({ step: "upgrade", ok: true, ms: upgradeMs, detail: `WebSocket upgrade accepted (101) by ${parsed.host}` });
    const isHello = hello.decodeServerHello(frame);
    steps.push({
      step: "frame",
      ok: true,
      ms: Math.round(performance.now() - (upgradedAt ?? t)),
      detail: isHello ? `first server frame: a server hello (${frame.length} bytes), the handshake can proceed` : `first server frame received (${frame.length} bytes), but it is not a server hello: is this the messaging network?`,
    });
  } catch (err) {
    const e = classify(err, "upgrade");
    if (upgradedAt === null) {
      steps.push({ step: "upgrade", ok: false, ms: ms(t), detail: e.message, reason: e.reason });
      skip("frame");
    } else {
      steps.push({ step: "upgrade", ok: true, ms: Math.round(upgradedAt - t), detail: `WebSocket upgrade accepted (101) by ${parsed.host}` });
      steps.push({ step: "frame", ok: false, ms: Math.round(performance.now() - upgradedAt), detail: e.reason === "timeout" ? `no first frame: ${e.message}` : e.message, reason: e.reason === "timeout" ? "no_frame" : e.reason });
    }
  }
  return done();
}

function ms(since: number): number {
  return Math.round(performance.now() - since);
}

/** The report as a person reads it: one line per step, then the verdict. */
export function formatReport(r: DoctorReport): string {
  const mark = (ok: boolean | null) => (ok === null ? "  -  " : ok ? " ok  " : "FAIL ");
  const lines = r.steps.map((s) => `${mark(s.ok)} ${s.step.padEnd(8)}${s.ms !== undefined ? `${String(s.ms).padStart(6)} ms  ` : "          "}${s.detail}`);
  return [`network check of ${r.url}`, ...lines, r.summary].join("\n") + "\n";
}
