import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ERROR_CODES } from "../../src/errors.ts";
import { WEBHOOK_EVENTS } from "../../src/events/bus.ts";
import { sampleData } from "../../src/modules/webhooks/samples.ts";
import { createTestApp, type RequestOpts, type TestApp } from "../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../helpers/fixtures.ts";
import { connectedSession, createApiKey } from "../modules/messages/helpers.ts";

// Every status a route answers must be listed in the OpenAPI document (a `default` response
// does not count). Probes go through the real app: a sweep of every operation without a
// credential, with a read-only member, and with the owner against unknown ids and an empty body,
// plus a table of requests that reach the statuses a sweep cannot (conflicts, network failures).

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };
interface Seen {
  method: string;
  path: string;
  status: number;
  body?: unknown;
}

/** The document path an URL path falls under (templates with fewer parameters win). */
function templateOf(doc: Doc, path: string): string | undefined {
  const candidates = Object.keys(doc.paths)
    .map((p) => ({ p, re: new RegExp(`^${p.replace(/\{[^}]+\}/g, "[^/]+")}$`), params: (p.match(/\{/g) ?? []).length }))
    .filter((c) => c.re.test(path))
    .sort((a, b) => a.params - b.params);
  return candidates[0]?.p;
}

/** The (method, path, status) answers the document does not list explicitly. */
export function undocumented(doc: Doc, seen: Seen[]): string[] {
  const out = new Set<string>();
  for (const s of seen) {
    const op = doc.paths[s.path]?.[s.method.toLowerCase()];
    // router-level: a method a documented path does not take is no operation to document; it
    // answers 405 with Allow (docs/api.md, error codes), as a path no route has answers 404
    if (!op && doc.paths[s.path] && s.status === 405) continue;
    if (!op || !op.responses?.[String(s.status)]) out.add(`${s.method} ${s.path} ${s.status}`);
  }
  return [...out].sort();
}

let t: TestApp;
let doc: Doc;
let ws: TestWorkspace;
let other: TestWorkspace;
let viewerToken: string;
let key: string;
let session: { id: string };
const seen: Seen[] = [];
const unknownId = "0193a1f4-6c2e-7d10-8a4b-3f5e2c1d9b7a";

async function probe(method: string, path: string, opts: RequestOpts = {}) {
  const r = await t.request(method, path, opts);
  const template = templateOf(doc, path.split("?")[0]!);
  seen.push({ method, path: template ?? `(no operation) ${path}`, status: r.status, body: r.body });
  return r;
}

const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries<any>(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, unknownId);

beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0, webhookAllowHttp: true, webhookAllowPrivate: true } });
  doc = (await t.request("GET", "/openapi.json")).body;
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  viewerToken = (await ws.member("viewer")).token;
  key = await createApiKey(t, ws);
  session = await connectedSession(t, ws);
});
afterAll(() => t.close());

describe("every status a route answers is in the document", () => {
  test("the sweep: no credential, a viewer, the owner with unknown ids and an empty body", async () => {
    for (const { path, method, op } of operations()) {
      const external = path.startsWith("/api/external/");
      const cred = (as: "owner" | "viewer"): RequestOpts => (external ? { apiKey: key } : { token: as === "owner" ? ws.owner.token : viewerToken });
      const body = op.requestBody?.content?.["application/json"] ? {} : undefined;
      await probe(method, concrete(path), { body });
      await probe(method, concrete(path), { ...cred("viewer"), body });
      await probe(method, concrete(path), { ...cred("owner"), body });
      // another workspace's credential on this workspace's session: the same as unknown
      if (path.includes("{id}") && path.startsWith("/api/v1/chatapp")) await probe(method, path.replace("{id}", session.id), { token: other.owner.token, body });
    }
    expect(undocumented(doc, seen)).toEqual([]);
    expect(seen.length).toBeGreaterThan(300);
  });

  test("the requests a sweep cannot make: conflicts, wrong credentials, network failures", async () => {
    const send = { session_id: session.id, to: "919876543210", type: "text", body: "hi" };
    expect((await probe("POST", "/api/auth/login", { body: { email: ws.owner.email, password: "wrong password!" } })).status).toBe(401);
    expect((await probe("POST", "/api/auth/refresh", { body: { refreshToken: "not-a-token" } })).status).toBe(401);
    expect((await probe("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { ...send, session_id: unknownId } })).status).toBe(404);
    const idem = { "idempotency-key": "openapi-statuses-1" };
    expect((await probe("POST", "/api/v1/messages/send", { token: ws.owner.token, body: send, headers: idem })).status).toBe(202);
    expect((await probe("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { ...send, body: "other" }, headers: idem })).status).toBe(409);
    expect((await probe("GET", `/api/v1/chatapp/${session.id}/qr`, { token: ws.owner.token })).status).toBe(409);
    expect((await probe("POST", "/api/v1/chatapp", { token: ws.owner.token, body: { name: "dup" } })).status).toBe(201);
    expect((await probe("POST", "/api/v1/chatapp", { token: ws.owner.token, body: { name: "dup" } })).status).toBe(409);
    const idle = (await probe("POST", "/api/v1/chatapp", { token: ws.owner.token, body: { name: "idle" } })).body.data;
    expect((await probe("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { ...send, session_id: idle.id } })).status).toBe(502);
    expect((await probe("POST", `/api/v1/chatapp/${idle.id}/disconnect`, { token: ws.owner.token })).status).toBe(409);
    const noSession = await createWorkspace(t);
    const hook = { name: "h", url: "http://127.0.0.1:9/hook", events: ["message_received"] };
    expect((await probe("POST", "/api/webhooks", { token: noSession.owner.token, body: hook })).status).toBe(409);
    expect((await probe("POST", "/api/v1/campaigns", { token: ws.owner.token, body: { name: "c", sessionIds: [session.id], message: { type: "text", body: "x" }, audience: { segmentId: unknownId } } })).status).toBeOneOf([400, 404]);
    expect((await probe("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "919800000011" } })).status).toBe(201);
    expect((await probe("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: "919800000011" } })).status).toBe(409);
    expect((await probe("POST", "/api/billing/checkout", { token: ws.owner.token, body: { planId: "growth", interval: "monthly" } })).status).toBe(409);
    // both pagings of the lists that have two, and the keyset lists (their shapes are checked below)
    const hookId = (await probe("POST", "/api/webhooks", { token: ws.owner.token, body: hook })).body.data.id;
    await probe("POST", `/api/webhooks/${hookId}/test`, { token: ws.owner.token });
    const history = await probe("GET", `/api/webhooks/${hookId}/history?limit=1`, { token: ws.owner.token });
    expect(history.body.pagination.totalPages).toBe(1);
    const older = await probe("GET", `/api/webhooks/${hookId}/history?before=${history.body.data[0].id}`, { token: ws.owner.token });
    expect(older.body.pagination).toEqual({ limit: 20, hasMore: false, nextCursor: null, prevCursor: null });
    expect((await probe("GET", "/api/v1/messages?limit=1", { token: ws.owner.token })).body.pagination).toHaveProperty("nextCursor");
    await probe("POST", `/api/sim/sessions/${session.id}/inbound`, { token: ws.owner.token, body: { from: "919800000001", text: "hi" } });
    const conversation = (await probe("GET", "/api/v1/inbox/conversations", { token: ws.owner.token })).body.data[0];
    expect((await probe("GET", `/api/v1/inbox/conversations/${conversation.id}/messages`, { token: ws.owner.token })).body.pagination).toHaveProperty("nextCursor");
    expect(undocumented(doc, seen)).toEqual([]);
  });

  test("a method a documented path does not take answers 405 with Allow: router-level, not an operation's status", async () => {
    const r = await t.app.handle(new Request("http://localhost/api/v1/contacts", { method: "PATCH", headers: { authorization: `Bearer ${ws.owner.token}` } }));
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toContain("GET");
    const seenHere = [{ method: "PATCH", path: "/api/v1/contacts", status: 405 }];
    expect(undocumented(doc, seenHere)).toEqual([]);
    // only 405, only on a documented path: any other undocumented answer is still caught
    expect(undocumented(doc, [{ method: "PATCH", path: "/api/v1/contacts", status: 500 }])).toEqual(["PATCH /api/v1/contacts 500"]);
    expect(undocumented(doc, [{ method: "PATCH", path: "/nowhere", status: 405 }])).toEqual(["PATCH /nowhere 405"]);
    const guide = await Bun.file(new URL("../../docs/api.md", import.meta.url)).text();
    expect(guide).toContain("`METHOD_NOT_ALLOWED`");
  });

  test("the check fails when a status the routes answer is left out", () => {
    const broken = structuredClone(doc);
    delete broken.paths["/api/auth/login"]!.post.responses["401"];
    expect(undocumented(broken, seen)).toContain("POST /api/auth/login 401");
    expect(undocumented(broken, [{ method: "GET", path: "/nowhere", status: 200 }])).toEqual(["GET /nowhere 200"]);
  });
});

/** Where `value` strays from the documented object schema `schema` (top-level keys, one level into objects and arrays). */
function strays(schema: any, value: unknown, at: string, depth = 0): string[] {
  if (!schema || value === null || typeof value !== "object" || depth > 2) return [];
  if (schema.$ref) return strays(doc.components.schemas[schema.$ref.split("/").pop()], value, at, depth);
  if (schema.anyOf || schema.oneOf) {
    const options: any[] = schema.anyOf ?? schema.oneOf;
    const fits = options.map((o) => strays(o, value, at, depth));
    return fits.some((f) => f.length === 0) ? [] : fits[0]!;
  }
  if (Array.isArray(value)) return schema.type === "array" && value.length ? strays(schema.items, value[0], `${at}[0]`, depth + 1) : [];
  if (!schema.properties || schema.additionalProperties) return [];
  const out: string[] = [];
  const keys = Object.keys(value as object);
  for (const k of keys) if (!(k in schema.properties)) out.push(`${at}.${k} is not documented`);
  for (const k of schema.required ?? []) if (!keys.includes(k)) out.push(`${at}.${k} is documented as required but missing`);
  for (const k of keys) out.push(...strays(schema.properties[k], (value as Record<string, unknown>)[k], `${at}.${k}`, depth + 1));
  return out;
}

describe("the document's content", () => {
  test("the success answers seen have the documented shape", () => {
    const off = new Set<string>();
    let n = 0;
    for (const s of seen) {
      if (s.status >= 300 || !s.body || typeof s.body !== "object") continue;
      const schema = doc.paths[s.path]?.[s.method.toLowerCase()]?.responses?.[String(s.status)]?.content?.["application/json"]?.schema;
      if (!schema) continue;
      n++;
      for (const o of strays(schema, s.body, `${s.method} ${s.path} ${s.status}`)) off.add(o);
    }
    expect([...off].sort()).toEqual([]);
    expect(n).toBeGreaterThan(20);
  });

  test("every success answer in the envelope has a typed data (or none at all)", () => {
    const untyped: string[] = [];
    for (const { path, method, op } of operations())
      for (const [status, r] of Object.entries<any>(op.responses))
        if (/^2/.test(status))
          for (const media of Object.values<any>(r.content ?? {})) {
            const data = media.schema?.properties?.data;
            if (!data) continue;
            const item = data.type === "array" ? data.items : data;
            if (!item || !["type", "$ref", "oneOf", "anyOf", "allOf"].some((k) => k in item)) untyped.push(`${method} ${path} ${status}`);
          }
    expect(untyped).toEqual([]);
  });

  test("every operation says which credential it takes; public ones say none", () => {
    for (const { op } of operations()) expect(Array.isArray(op.security)).toBe(true);
    for (const p of ["/health", "/ready", "/api/auth/login", "/api/auth/register", "/api/billing/webhooks/razorpay", "/api/team/invitations/accept"]) {
      const op = Object.values<any>(doc.paths[p]!)[0];
      expect(op.security).toEqual([]);
    }
    expect(doc.paths["/api/v1/chatapp"]!.get.security).toEqual([{ bearer: [] }]);
    expect((doc as any).servers).toEqual([{ url: "/", description: expect.any(String) }]);
  });

  test("nullable enums list null", () => {
    const bad: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${at}/${i}`));
      else if (node && typeof node === "object") {
        const o = node as Record<string, unknown>;
        if (o.nullable === true && Array.isArray(o.enum) && !o.enum.includes(null)) bad.push(at);
        for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
      }
    };
    walk(doc, "#");
    expect(bad).toEqual([]);
    const campaign = doc.paths["/api/v1/campaigns/{id}"]!.get.responses["200"].content["application/json"].schema.properties.data;
    expect(campaign.properties.pausedReason.enum).toContain(null);
  });

  test("error examples carry the code of their status", () => {
    const codeStatus = (code: string): number => ERROR_CODES[code as keyof typeof ERROR_CODES].status;
    let n = 0;
    for (const { path, method, op } of operations())
      for (const [status, entry] of Object.entries<any>(op.responses)) {
        if (!/^[45]/.test(status)) continue;
        const r = entry.$ref ? (doc.components as any).responses[entry.$ref.split("/").pop()] : entry;
        const examples = Object.values<any>(r.content["application/json"].examples ?? {});
        expect(examples.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
        for (const e of examples) {
          n++;
          // 413 is a VALIDATION_ERROR by its size, 503 an INTERNAL_ERROR (not ready)
          const expected = status === "413" ? 400 : status === "503" ? 500 : Number(status);
          expect(codeStatus(e.value.code), `${method} ${path} ${status} ${e.value.code}`).toBe(expected);
        }
      }
    expect(n).toBeGreaterThan(300);
    const login = doc.paths["/api/auth/login"]!.post.responses;
    expect(login["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
    const shared = (doc.components as any).responses;
    expect(shared.Unauthorized.content["application/json"].examples.unauthorized.value.code).toBe("UNAUTHORIZED");
    expect(shared.RateLimited.headers["Retry-After"].schema.type).toBe("integer");
  });

  test("no <placeholder> is lost in the rendered descriptions (markdown would drop it as HTML)", () => {
    const lost: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (typeof node === "string") {
        if (/<[A-Za-z][\w-]*>/.test(node.replace(/`[^`]*`/g, ""))) lost.push(`${at}: ${node}`);
      } else if (node && typeof node === "object") for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk({ info: (doc as any).info, paths: doc.paths }, "#");
    expect(lost).toEqual([]);
  });

  test("the send example works as written, given a session id of the workspace", async () => {
    const example = doc.paths["/api/v1/messages/send"]!.post.requestBody.content["application/json"].schema.example;
    expect(example.type).toBe("text");
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { ...example, session_id: session.id } });
    expect(r.status).toBe(202);
    const external = await t.request("POST", "/api/external/messages/send", { apiKey: key, body: { ...example, session_id: session.id } });
    expect(external.status).toBe(202);
  });

  test("webhook deliveries: a payload schema per event with the keys the events carry, and the signature headers", () => {
    const callback = doc.paths["/api/webhooks"]!.post.callbacks.delivery["{$request.body#/url}"].post;
    const headers = callback.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`);
    for (const h of ["X-Webhook-Event", "X-Webhook-Signature", "X-Webhook-Delivery-Id", "X-Webhook-Attempt", "X-Webhook-Timestamp", "webhook-id", "webhook-timestamp", "webhook-signature"])
      expect(headers).toContain(`header:${h}`);
    expect(callback.requestBody.content["application/json"].schema.oneOf).toHaveLength(WEBHOOK_EVENTS.length);
    for (const event of WEBHOOK_EVENTS) {
      const schema = doc.components.schemas[`WebhookPayload_${event}`];
      expect(schema.required).toEqual(["event", "timestamp", "data"]);
      const data = schema.properties.data;
      const sample = Object.keys(sampleData(event, new Date()));
      for (const k of sample) expect(Object.keys(data.properties), `${event}.${k}`).toContain(k);
      for (const k of data.required ?? []) expect(sample, `${event}.${k}`).toContain(k);
    }
  });
});
