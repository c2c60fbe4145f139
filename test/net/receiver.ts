// A real HTTP(S) receiver on loopback for webhook and guarded-fetch tests.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCert {
  cert: string;
  key: string;
  /** path of the certificate (it is its own CA: self-signed) */
  certFile: string;
}

let cached: TestCert | null = null;

/** A self-signed certificate for localhost, 127.0.0.1 and *.test, made once per process with openssl. */
export function testCert(): TestCert {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), "parley-cert-"));
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  const r = Bun.spawnSync([
    "/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
    "-keyout", keyFile, "-out", certFile, "-days", "2", "-subj", "/CN=localhost",
    "-addext", "subjectAltName=DNS:localhost,DNS:receiver.test,DNS:*.receiver.test,IP:127.0.0.1",
  ], { stdout: "ignore", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl failed: ${r.stderr.toString()}`);
  cached = { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8"), certFile };
  return cached;
}

export interface Received {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

export type Handler = (req: Received, n: number) => Response | Promise<Response>;

export interface Receiver {
  /** base URL, e.g. https://127.0.0.1:PORT */
  url: string;
  port: number;
  received: Received[];
  handler: Handler;
  stop(): void;
}

/** Starts a receiver recording every request; `handler` decides the answer (default 200 "ok"). */
export function startReceiver(opts: { tls?: boolean; handler?: Handler } = {}): Receiver {
  const received: Received[] = [];
  const self: Receiver = {
    url: "",
    port: 0,
    received,
    handler: opts.handler ?? (() => new Response("ok")),
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: opts.tls ? { cert: testCert().cert, key: testCert().key } : undefined,
    idleTimeout: 30,
    async fetch(req) {
      const r: Received = { method: req.method, path: new URL(req.url).pathname, headers: req.headers, body: await req.text() };
      received.push(r);
      return self.handler(r, received.length);
    },
  });
  self.port = server.port!;
  self.url = `${opts.tls ? "https" : "http"}://127.0.0.1:${server.port}`;
  return self;
}
