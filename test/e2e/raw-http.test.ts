import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, spawnServer, type ChildServer } from "../helpers/process.ts";

const MEDIA_LIMIT = 2 * 1024 * 1024;
let s: ChildServer;
/** An API key of a workspace: a media route reads a big body only from a caller who authenticates. */
let apiKey: string;
beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-raw-"));
  s = await spawnServer({ dataDir, env: { PARLEY_MEDIA_BODY_LIMIT: String(MEDIA_LIMIT), PARLEY_LOG_LEVEL: "warn" } });
  const cli = (...args: string[]) => Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), ...args, "-d", dataDir], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  expect(cli("workspaces", "create", "--name", "Raw", "--owner-email", "raw@example.com", "--owner-name", "Raw", "--password", "Sturdy-pass-123").exitCode).toBe(0);
  apiKey = cli("keys", "create", "--workspace", "Raw", "--name", "raw").stdout.toString().split("\n")[0]!.trim();
  expect(apiKey).toStartWith("pk_");
}, 30_000);
afterAll(async () => {
  expect(await s.stop()).toBe(0);
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes raw bytes to the server (then `more` chunks, until it closes or they run out) and reads the first response. */
function raw(head: string, more: Buffer[] = []): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const sock = connect(s.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let closed = false;
    sock.on("data", (d: Buffer) => chunks.push(d));
    sock.on("error", () => {}); // a reset after the answer is fine: the answer is what counts
    sock.on("close", () => {
      closed = true;
      const text = Buffer.concat(chunks).toString("latin1");
      const [headText = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = headText.split("\r\n");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(statusLine);
      if (!m) return reject(new Error(`no HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(":");
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({ status: Number(m[1]), headers, body: rest.join("\r\n\r\n") });
    });
    sock.write(head);
    (async () => {
      for (const c of more) {
        if (closed || sock.destroyed) return;
        sock.write(c);
        await Bun.sleep(1);
      }
      if (!closed) setTimeout(() => sock.end(), 300);
    })();
  });
}

const envelope = (r: RawResponse) => {
  expect(r.headers["content-type"]).toContain("application/json");
  expect(r.headers["x-request-id"]).toBeTruthy();
  const body = JSON.parse(r.body);
  expect(body.success).toBe(false);
  expect(body.requestId).toBe(r.headers["x-request-id"]);
  return body;
};

describe("413: the app answers every body cap in the envelope", () => {
  test("a declared JSON body far beyond every cap (Bun's own limit used to answer first)", async () => {
    const r = await raw("POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 900000000\r\n\r\n{");
    expect(r.status).toBe(413);
    expect(envelope(r)).toMatchObject({ code: "VALIDATION_ERROR", errors: { body: "must be at most 1048576 bytes" } });
  });

  test("a declared upload beyond the media cap", async () => {
    const r = await raw(`POST /api/v1/media HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=zz\r\nContent-Length: ${MEDIA_LIMIT * 4}\r\n\r\n--zz\r\n`);
    expect(r.status).toBe(413);
    expect(envelope(r).errors.body).toBe(`must be at most ${MEDIA_LIMIT} bytes`);
  });

  test("a chunked upload (no Content-Length) that grows past the media cap", async () => {
    const part = Buffer.alloc(256 * 1024, 0x61);
    const chunk = Buffer.concat([Buffer.from(part.length.toString(16) + "\r\n"), part, Buffer.from("\r\n")]);
    const head = `POST /api/external/media HTTP/1.1\r\nHost: x\r\nX-API-Key: ${apiKey}\r\nContent-Type: multipart/form-data; boundary=zz\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const preamble = '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n';
    const first = Buffer.concat([Buffer.from(preamble.length.toString(16) + "\r\n" + preamble + "\r\n")]);
    // an authenticated caller (an anonymous one gets 401 before the body is read): the cap holds while reading
    const r = await raw(head, [first, ...Array.from({ length: (MEDIA_LIMIT * 2) / part.length }, () => chunk)]);
    expect(r.status).toBe(413);
    expect(envelope(r).errors.body).toBe(`must be at most ${MEDIA_LIMIT} bytes`);
  });
});

describe("400 from the app: in the envelope", () => {
  test("malformed JSON", async () => {
    const r = await raw("POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{x]");
    expect(r.status).toBe(400);
    expect(envelope(r)).toMatchObject({ code: "VALIDATION_ERROR", errors: { body: "is not valid JSON" } });
  });

  test("a bad percent escape in the path reaches the router: 404 in the envelope", async () => {
    const r = await raw("GET /api/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(r.status).toBe(404);
    expect(envelope(r).code).toBe("NOT_FOUND");
  });
});

describe("Bun's parser-tier answers (no JavaScript runs: they cannot carry the envelope)", () => {
  // Bun 1.x writes these from fixed strings in its HTTP parser (uWS HttpErrors.h) and closes the
  // connection; neither Bun.serve's `error` nor Elysia's onError is called. This pins what a client
  // gets, so a Bun upgrade that starts routing them through JavaScript shows up here.
  const cases: [string, string, number][] = [
    ["431: headers over Bun's 16 KiB", `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(100_000)}\r\n\r\n`, 431],
    ["505: an HTTP version other than 1.x", "GET /health HTTP/2.0\r\nHost: x\r\n\r\n", 505],
    ["400: a request line that is not HTTP", "GARBAGE\r\n\r\n", 400],
    ["400: a header line without a colon", "GET /health HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400],
    ["400: Content-Length with Transfer-Encoding (smuggling)", "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400],
  ];
  for (const [name, payload, status] of cases) {
    test(name, async () => {
      const r = await raw(payload);
      expect(r.status).toBe(status);
      expect(r.headers.connection).toBe("close");
      expect(r.body).toBe("");
    });
  }

  test("the server keeps answering in the envelope after them", async () => {
    const r = await fetch(`${s.url}/health`);
    expect(r.status).toBe(200);
    expect(((await r.json()) as { success: boolean }).success).toBe(true);
  });
});
