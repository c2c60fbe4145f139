import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { z } from "zod";
import { loadConfig } from "../../src/config.ts";
import { AppError } from "../../src/errors.ts";
import { corePlugin } from "../../src/http/core-plugin.ts";
import { errorsPlugin } from "../../src/http/errors-plugin.ts";
import { ok, pageQuery, paged } from "../../src/http/envelope.ts";
import { createLogger } from "../../src/log.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";

// A small app built from the real plugins, with routes that exercise each failure path.
const logLines: string[] = [];
const log = createLogger({ level: "debug", format: "json", write: (l) => logLines.push(l) });
const config = loadConfig({ jsonBodyLimit: 2048, mediaBodyLimit: 4096 });
const app = new Elysia()
  .use(corePlugin(config, log))
  .use(errorsPlugin(log))
  .post("/things", ({ body }) => ok(body), {
    body: z.object({ name: z.string().min(2), audience: z.object({ tags: z.array(z.string()) }) }),
  })
  .get("/list", ({ query }) => paged([1, 2], query.page, query.limit, 45), { query: pageQuery })
  .get("/boom", () => {
    throw new Error("secret internals at /srv/parley.ts:42");
  })
  .get("/conflict", () => {
    throw new AppError("CONFLICT", "already there");
  });

const call = async (path: string, init?: RequestInit) => {
  const res = await app.handle(new Request(`http://localhost${path}`, init));
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};
const postJson = (path: string, body: string, headers: Record<string, string> = {}) =>
  call(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

describe("failure envelope", () => {
  test("validation failure is 400 VALIDATION_ERROR with dotted field paths, never 422", async () => {
    const r = await postJson("/things", JSON.stringify({ name: "a", audience: { tags: [1] } }));
    expect(r.status).toBe(400);
    expect(r.body.success).toBe(false);
    expect(r.body.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(r.body.errors)).toEqual(["name", "audience.tags.0"]);
    expect(typeof r.body.requestId).toBe("string");
  });

  test("a missing field is named and called required", async () => {
    const r = await postJson("/things", JSON.stringify({ audience: { tags: [] } }));
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual({ name: "is required" });
  });

  test("query validation: limit above 100 is refused", async () => {
    const r = await call("/list?limit=101");
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("VALIDATION_ERROR");
    expect(r.body.errors.limit).toBeDefined();
  });

  test("pagination object has page, limit, total, totalPages", async () => {
    const r = await call("/list?page=2&limit=10");
    expect(r.body).toEqual({ success: true, data: [1, 2], pagination: { page: 2, limit: 10, total: 45, totalPages: 5 } });
  });

  test("malformed JSON is 400 VALIDATION_ERROR", async () => {
    const r = await postJson("/things", "{bad json");
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("VALIDATION_ERROR");
    expect(r.body.errors.body).toBeDefined();
  });

  test("a JSON body over the cap is 413 in the envelope (declared length)", async () => {
    const big = JSON.stringify({ name: "x".repeat(5000), audience: { tags: [] } });
    const r = await postJson("/things", big);
    expect(r.status).toBe(413);
    expect(r.body.success).toBe(false);
    expect(r.body.code).toBe("VALIDATION_ERROR");
    expect(r.body.errors.body).toContain("2048");
  });

  test("a streamed body over the cap without Content-Length is 413 too", async () => {
    const chunk = new TextEncoder().encode("x".repeat(1000));
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 5; i++) c.enqueue(chunk);
        c.close();
      },
    });
    const r = await call("/things", { method: "POST", headers: { "content-type": "application/json" }, body: stream });
    expect(r.status).toBe(413);
  });

  test("a multipart body over the media cap is 413 in the envelope", async () => {
    const r = await call("/things", { method: "POST", headers: { "content-type": "multipart/form-data; boundary=x", "content-length": "5000" }, body: "x".repeat(5000) });
    expect(r.status).toBe(413);
    expect(r.body.success).toBe(false);
  });

  test("unknown route is 404 NOT_FOUND in the envelope", async () => {
    const r = await call("/no/such/route");
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, code: "NOT_FOUND" });
  });

  test("an unexpected error is 500 INTERNAL_ERROR with no stack, logged with the request id", async () => {
    const r = await call("/boom");
    expect(r.status).toBe(500);
    expect(r.body.code).toBe("INTERNAL_ERROR");
    const text = JSON.stringify(r.body);
    expect(text).not.toContain("secret internals");
    expect(text).not.toContain("parley.ts");
    const logged = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === "unhandled error");
    expect(logged.requestId).toBe(r.body.requestId);
    expect(logged.err.message).toContain("secret internals");
  });

  test("AppError maps through the registry", async () => {
    const r = await call("/conflict");
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ success: false, code: "CONFLICT", message: "already there" });
  });

  test("X-Request-Id is on every response and matches the body", async () => {
    for (const path of ["/list", "/boom", "/nope", "/conflict"]) {
      const r = await call(path);
      const id = r.headers.get("x-request-id");
      expect(id).toBeTruthy();
      if (!r.body.success) expect(r.body.requestId).toBe(id);
    }
  });

  test("a sane incoming X-Request-Id is kept, a hostile one replaced", async () => {
    const kept = await call("/list", { headers: { "x-request-id": "abc-123" } });
    expect(kept.headers.get("x-request-id")).toBe("abc-123");
    const replaced = await call("/list", { headers: { "x-request-id": "bad id\u0001" } });
    // replaced by a fresh UUIDv7 (not "contains no 'bad'": a random UUID may hold "bad" in hex)
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  test("the access log is one JSON line with request id, method, path, status, duration", async () => {
    logLines.length = 0;
    const r = await call("/list");
    await Bun.sleep(5);
    const id = r.headers.get("x-request-id");
    const line = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === "request" && l.requestId === id);
    expect(line).toMatchObject({ level: "info", method: "GET", path: "/list", status: 200, requestId: r.headers.get("x-request-id") });
    expect(typeof line.durationMs).toBe("number");
  });
});

describe("CORS", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { corsOrigins: "https://dash.example.com" } });
  });
  afterAll(() => t.close());

  test("dashboard routes allow configured origins only", async () => {
    const good = await t.request("GET", "/health", { headers: { origin: "https://dash.example.com" } });
    expect(good.headers.get("access-control-allow-origin")).toBe("https://dash.example.com");
    const bad = await t.request("GET", "/health", { headers: { origin: "https://evil.example.com" } });
    expect(bad.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("preflight answers 204 with allowed methods", async () => {
    const r = await t.request("OPTIONS", "/health", { headers: { origin: "https://dash.example.com", "access-control-request-method": "POST" } });
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-methods")).toContain("POST");
  });

  test("/api/external never sends CORS headers", async () => {
    const r = await t.request("GET", "/api/external/sessions", { headers: { origin: "https://dash.example.com" } });
    expect(r.headers.get("access-control-allow-origin")).toBeNull();
  });
});
