// The permission matrix: every route of the OpenAPI document x {owner, admin, agent, viewer,
// another workspace's owner, no credential, revoked key, the wrong kind of credential}.
// Routes come from GET /openapi.json, so a new route fails this test until it is classified
// in RULES below (lead: add one line per route; most need only `perm` and an id builder).
import { afterAll, describe, expect, test } from "bun:test";
import { upsertPlan } from "../../src/modules/billing/plans.ts";
import { setPlanManually } from "../../src/modules/billing/subscription.ts";
import type { Role } from "../../src/modules/users/table.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../helpers/fixtures.ts";

type Permission = "read" | "messaging" | "manage" | "team" | "billing";
/** "registration": carries a registration token (D3), covered in depth by test/modules/auth. */
type AuthKind = "public" | "registration" | "jwt" | "apiKey" | "jwtOrApiKey";

/** D5, written out again here on purpose (not imported from src/auth/permissions.ts). */
const D5: Record<Permission, Role[]> = {
  read: ["owner", "admin", "agent", "viewer"],
  messaging: ["owner", "admin", "agent"],
  manage: ["owner", "admin"],
  team: ["owner", "admin"],
  billing: ["owner"],
};
const ROLES: Role[] = ["owner", "admin", "agent", "viewer"];

/** What a builder gets: the app and the workspace whose resources it must use (created fresh per call). */
interface Ctx {
  t: TestApp;
  ws: TestWorkspace;
}

interface Rule {
  /** default "jwt" */
  auth?: AuthKind;
  /** default by method: GET -> read; any other method must say */
  perm?: Permission;
  /** values of the path parameters: ids of resources of `ctx.ws` */
  params?: (c: Ctx) => Promise<Record<string, string>> | Record<string, string>;
  /** a valid body (ids in it from `ctx.ws`) */
  body?: (c: Ctx) => Promise<unknown> | unknown;
  /** the body carries ids of the workspace: another workspace's owner must get 404 */
  bodyIds?: boolean;
  /** statuses an allowed caller may get (default: anything but 401, 403 FORBIDDEN and 404) */
  ok?: number[];
  /** data to put in the workspace before a list is read by another workspace's owner */
  seed?: (c: Ctx) => Promise<void> | void;
}

let seq = 0;
const uniqueEmail = () => `matrix-${++seq}-${Bun.randomUUIDv7().slice(-8)}@example.com`;

// -- builders shared by rules --
const apiKeyId = async ({ t, ws }: Ctx) => ({ id: (await t.request("POST", "/api/api-keys", { token: ws.owner.token, body: { name: "fixture" } })).body.data.id });
const memberId = async ({ ws }: Ctx) => ({ id: (await ws.member("agent")).userId });
const invitationId = async ({ t, ws }: Ctx) => ({
  id: (await t.request("POST", "/api/team/invitations", { token: ws.owner.token, body: { email: uniqueEmail(), role: "agent" } })).body.data.id,
});

const sessionId = async ({ t, ws }: Ctx) => ({
  id: (await t.request("POST", "/api/v1/chatapp", { token: ws.owner.token, body: { name: `s-${++seq}` } })).body.data.id,
});

const HOOK_URL = "http://127.0.0.1:9/hook";
const connectedSession = ({ t, ws }: Ctx) => {
  const now = t.clock.now().getTime();
  t.deps.sqlite
    .query("INSERT INTO chat_sessions (id, workspace_id, name, status, phone_number, connected_at, created_at, updated_at) VALUES (?, ?, ?, 'connected', '919800000000', ?, ?, ?)")
    .run(Bun.randomUUIDv7(), ws.id, `connected-${++seq}`, now, now, now);
};
const webhookId = async (c: Ctx) => {
  connectedSession(c);
  const r = await c.t.request("POST", "/api/webhooks", { token: c.ws.owner.token, body: { name: "matrix", url: HOOK_URL, events: ["message_received"] } });
  return { id: r.body.data.id as string };
};
const deliveryIds = async (c: Ctx) => {
  const { id } = await webhookId(c);
  c.t.deps.bus.transaction(() => c.t.deps.bus.publish(c.ws.id, "message_received", { sessionId: "s", from: "919800000001", messageId: "m", text: "hi", content: "hi", mediaUrl: null }));
  const row = c.t.deps.sqlite.query("SELECT id FROM webhook_deliveries WHERE webhook_id = ?").get(id) as { id: string };
  return { id, deliveryId: row.id };
};

const connectedSessionId = ({ t, ws }: Ctx) => {
  const id = Bun.randomUUIDv7();
  const now = t.clock.now().getTime();
  t.deps.sqlite
    .query("INSERT INTO chat_sessions (id, workspace_id, name, status, phone_number, connected_at, created_at, updated_at) VALUES (?, ?, ?, 'connected', '919800000000', ?, ?, ?)")
    .run(id, ws.id, `live-${++seq}`, now, now, now);
  return id;
};
const sendBody = (c: Ctx) => ({ session_id: connectedSessionId(c), to: "919822222222", type: "text", body: "hello" });
const messageId = async (c: Ctx) => ({
  id: (await c.t.request("POST", "/api/v1/messages/send", { token: c.ws.owner.token, body: sendBody(c) })).body.data.id as string,
});
/** An inbound message through the messaging module's own handler: a contact and a conversation. */
const inbound = async (c: Ctx) => {
  const { receiveInbound } = await import("../../src/modules/messages/inbound.ts");
  const sessionId = connectedSessionId(c);
  const from = `9198${String(++seq).padStart(8, "0")}`;
  await receiveInbound(c.t.deps, sessionId, { networkMessageId: `IN${seq}`, from, pushName: "Ravi", type: "text", text: "hi", timestamp: c.t.clock.now() });
  return c.t.deps.sqlite.query("SELECT id, contact_id AS contactId FROM conversations WHERE workspace_id = ? AND phone = ?").get(c.ws.id, from) as { id: string; contactId: string };
};
const pdf = () => {
  const form = new FormData();
  form.append("file", new File([new TextEncoder().encode("%PDF-1.4\n%matrix\n")], "matrix.pdf", { type: "application/pdf" }));
  return form;
};
const mediaId = async (c: Ctx) => ({ id: (await c.t.request("POST", "/api/v1/media", { token: c.ws.owner.token, body: pdf() })).body.data.id as string });

/** Keyed by "METHOD /openapi/path". */
const RULES: Record<string, Rule> = {
  // public
  "GET /health": { auth: "public" },
  "GET /ready": { auth: "public" },
  "POST /api/team/invitations/accept": { auth: "public" },
  "POST /api/billing/webhooks/razorpay": { auth: "public" },
  "GET /api/auth/captcha": { auth: "public" },
  "POST /api/auth/register": { auth: "public" },
  "POST /api/auth/login": { auth: "public" },
  "POST /api/auth/login/send-otp": { auth: "public" },
  "POST /api/auth/login/verify-otp": { auth: "public" },
  "POST /api/auth/refresh": { auth: "public" },
  "POST /api/auth/logout": { auth: "public" },
  "POST /api/auth/forgot-password": { auth: "public" },
  "POST /api/auth/reset-password": { auth: "public" },

  // registration steps (D3): a registration token, never an access token or a key
  "POST /api/auth/mobile/send-otp": { auth: "registration" },
  "POST /api/auth/mobile/verify-otp": { auth: "registration", body: () => ({ otpCode: "123456" }) },
  "POST /api/auth/email/send-verification-code": { auth: "registration" },
  "POST /api/auth/email/verify": { auth: "registration", body: () => ({ code: "123456" }) },

  // own account: every role
  "GET /api/auth/profile": { ok: [200] },
  "PUT /api/auth/profile": { perm: "read", body: () => ({ name: "Renamed Member" }), ok: [200] },
  "POST /api/auth/change-password": {
    perm: "read",
    body: () => ({ currentPassword: "correct horse battery", newPassword: "a brand new passphrase 42" }),
    ok: [200],
  },
  "PUT /api/auth/2fa": { perm: "read", body: () => ({ enabled: false, password: "correct horse battery" }), ok: [200] },

  // sessions (D7); a fresh disconnected session per request
  "GET /api/v1/chatapp": { ok: [200], seed: async (c) => void (await sessionId(c)) },
  "POST /api/v1/chatapp": { perm: "manage", body: () => ({ name: `matrix-${++seq}` }), ok: [201] },
  "GET /api/v1/chatapp/{id}": { params: sessionId, ok: [200] },
  "DELETE /api/v1/chatapp/{id}": { perm: "manage", params: sessionId, ok: [200] },
  "POST /api/v1/chatapp/{id}/connect": { perm: "manage", params: sessionId, ok: [200] },
  "GET /api/v1/chatapp/{id}/status": { params: sessionId, ok: [200] },
  "GET /api/v1/chatapp/{id}/qr": { params: sessionId, ok: [409] },
  "POST /api/v1/chatapp/{id}/pairing-code": { perm: "manage", params: sessionId, body: () => ({ phoneNumber: "919812345678" }), ok: [409] },
  "POST /api/v1/chatapp/{id}/disconnect": { perm: "manage", params: sessionId, ok: [409] },
  "GET /api/external/sessions": { auth: "apiKey", ok: [200], seed: async (c) => void (await sessionId(c)) },

  // the sim network's controls (D12): the session is disconnected, so the network refuses (409)
  "POST /api/sim/sessions/{id}/scan": { perm: "manage", params: sessionId, body: () => ({ phoneNumber: "919812345678" }), ok: [409] },
  "POST /api/sim/sessions/{id}/inbound": { perm: "manage", params: sessionId, body: () => ({ from: "919812345678", text: "hi" }), ok: [409] },
  "POST /api/sim/sessions/{id}/receipt": { perm: "manage", params: sessionId, body: () => ({ messageId: "SIMX", status: "read" }), ok: [404, 409] },
  "POST /api/sim/sessions/{id}/logout": { perm: "manage", params: sessionId, body: () => ({}), ok: [409] },
  "POST /api/sim/sessions/{id}/fail": { perm: "manage", params: sessionId, body: () => ({ count: 1 }), ok: [200, 409] },

  // webhooks (D9)
  "GET /api/webhooks/events": { auth: "public" },
  "GET /api/webhooks": { ok: [200], seed: async (c) => void (await webhookId(c)) },
  "POST /api/webhooks": {
    perm: "manage",
    body: (c) => {
      connectedSession(c);
      return { name: "matrix", url: HOOK_URL, events: ["message.received"] };
    },
    ok: [201],
  },
  "GET /api/webhooks/{id}": { params: webhookId, ok: [200] },
  "PATCH /api/webhooks/{id}": { perm: "manage", params: webhookId, body: () => ({ name: "renamed" }), ok: [200] },
  "DELETE /api/webhooks/{id}": { perm: "manage", params: webhookId, ok: [200] },
  "POST /api/webhooks/{id}/rotate-secret": { perm: "manage", params: webhookId, ok: [200] },
  "GET /api/webhooks/{id}/history": { params: webhookId, ok: [200] },
  "POST /api/webhooks/{id}/test": { perm: "manage", params: webhookId, ok: [200] },
  "POST /api/webhooks/{id}/deliveries/{deliveryId}/retry": { perm: "manage", params: deliveryIds, ok: [200] },

  // messages (D8): the session is connected in the database; the sender runs later
  "POST /api/v1/messages/send": { auth: "jwtOrApiKey", perm: "messaging", body: sendBody, bodyIds: true, ok: [202] },
  "POST /api/external/messages/send": { auth: "apiKey", perm: "messaging", body: sendBody, bodyIds: true, ok: [202] },
  "GET /api/external/messages/{id}": { auth: "apiKey", params: messageId, ok: [200] },
  "GET /api/v1/messages/{id}": { params: messageId, ok: [200] },
  "GET /api/v1/messages": { ok: [200], seed: async (c) => void (await messageId(c)) },
  "POST /api/v1/media": { auth: "jwtOrApiKey", perm: "messaging", body: pdf, ok: [201] },
  "GET /api/v1/media/{id}": { auth: "jwtOrApiKey", params: mediaId, ok: [200] },

  // inbox and contacts
  "GET /api/v1/inbox/conversations": { ok: [200], seed: async (c) => void (await inbound(c)) },
  "GET /api/v1/inbox/conversations/{id}": { params: async (c) => ({ id: (await inbound(c)).id }), ok: [200] },
  "GET /api/v1/inbox/conversations/{id}/messages": { params: async (c) => ({ id: (await inbound(c)).id }), ok: [200] },
  "POST /api/v1/inbox/conversations/{id}/read": { perm: "messaging", params: async (c) => ({ id: (await inbound(c)).id }), ok: [200] },
  "PUT /api/v1/inbox/conversations/{id}/assign": {
    perm: "messaging",
    params: async (c) => ({ id: (await inbound(c)).id }),
    body: ({ ws }) => ({ userId: ws.owner.userId }),
    bodyIds: true,
    ok: [200],
  },
  "GET /api/v1/contacts": { ok: [200], seed: async (c) => void (await inbound(c)) },
  "GET /api/v1/contacts/{id}": { params: async (c) => ({ id: (await inbound(c)).contactId }), ok: [200] },

  // API keys (D6)
  "POST /api/api-keys": { perm: "manage", body: () => ({ name: "matrix" }), ok: [201] },
  "GET /api/api-keys": { perm: "manage", ok: [200], seed: async (c) => void (await apiKeyId(c)) },
  "DELETE /api/api-keys/{id}": { perm: "manage", params: apiKeyId, ok: [200] },

  // team
  "GET /api/team/members": { ok: [200] },
  "PATCH /api/team/members/{id}": { perm: "team", params: memberId, body: () => ({ role: "viewer" }), ok: [200] },
  "DELETE /api/team/members/{id}": { perm: "team", params: memberId, ok: [200] },
  "POST /api/team/transfer-ownership": {
    perm: "billing",
    body: async ({ ws }) => ({ userId: (await ws.member("admin")).userId }),
    bodyIds: true,
    ok: [200],
  },
  "GET /api/team/invitations": { perm: "team", ok: [200], seed: async (c) => void (await invitationId(c)) },
  "POST /api/team/invitations": { perm: "team", body: () => ({ email: uniqueEmail(), role: "agent" }), ok: [201] },
  "POST /api/team/invitations/{id}/resend": { perm: "team", params: invitationId, ok: [200] },
  "DELETE /api/team/invitations/{id}": { perm: "team", params: invitationId, ok: [200] },

  // workspace
  "GET /api/workspace": { ok: [200] },
  "PATCH /api/workspace": { perm: "team", body: () => ({ name: "Renamed by matrix" }), ok: [200] },

  // billing (no Razorpay keys here: checkout and verify answer 409 "billing is manual")
  "GET /api/billing/plans": { ok: [200] },
  "GET /api/billing/subscription": { ok: [200] },
  "GET /api/billing/invoices": { ok: [200], seed: ({ t, ws }) => void setPlanManually(t.deps, ws.id, "pro", "monthly") },
  "POST /api/billing/checkout": { perm: "billing", body: () => ({ planId: "pro", interval: "monthly" }), ok: [409] },
  "POST /api/billing/verify": {
    perm: "billing",
    body: () => ({ razorpay_order_id: "order_matrix", razorpay_payment_id: "pay_matrix", razorpay_signature: "00" }),
    ok: [409],
  },
};

// ---------------------------------------------------------------------------------------------

// webhooks point at a closed loopback port: allowed by the operator settings, never answered
const t = await createTestApp({ config: { rateLimitPerMinute: 1_000_000, webhookAllowHttp: true, webhookAllowPrivate: true, webhookTimeoutMs: 500 } });
afterAll(() => t.close());
// quotas must not be what refuses a request here
upsertPlan(t.deps.sqlite, "matrix", { name: "Matrix", monthlyPaise: 100, annualPaise: 1000, limits: { sessions: 1000, messagesPerMonth: 1e6, contacts: 1e6, apiRequestsPerDay: 1e6, webhooks: 1000, teamSeats: 1000, campaigns: true } }, 0);
const doc = (await t.request("GET", "/openapi.json")).body as { paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>> };

interface Route {
  method: string;
  path: string;
  key: string;
  security: string[];
}
const routes: Route[] = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({
    method: method.toUpperCase(),
    path,
    key: `${method.toUpperCase()} ${path}`,
    security: (op.security ?? []).flatMap((s) => Object.keys(s)).sort(),
  })),
);

/** Digest of every table: a refused request must leave it identical. */
function dbDigest(): string {
  // usage_counters is metering, not data: an authenticated API-key request counts against its
  // own workspace's daily quota even when the answer is 404
  const tables = t.deps.sqlite
    .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('__drizzle_migrations', 'usage_counters') ORDER BY name")
    .all() as { name: string }[];
  const h = new Bun.CryptoHasher("sha256");
  for (const { name } of tables) h.update(name).update(JSON.stringify(t.deps.sqlite.query(`SELECT * FROM "${name}" ORDER BY rowid`).all()));
  return h.digest("hex");
}

function tablesWithWorkspaceId(): string[] {
  const tables = t.deps.sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
  return tables.map((x) => x.name).filter((name) => (t.deps.sqlite.query(`PRAGMA table_info("${name}")`).all() as { name: string }[]).some((c) => c.name === "workspace_id"));
}

/** Digest of one workspace's rows in every table that has a workspace_id. */
function workspaceDigest(wsId: string): string {
  const h = new Bun.CryptoHasher("sha256").update(JSON.stringify(t.deps.sqlite.query("SELECT * FROM workspaces WHERE id = ?").get(wsId)));
  for (const name of tablesWithWorkspaceId()) h.update(name).update(JSON.stringify(t.deps.sqlite.query(`SELECT * FROM "${name}" WHERE workspace_id = ? ORDER BY rowid`).all(wsId)));
  return h.digest("hex");
}

/** Ids and emails of one workspace's rows: none may appear in another workspace's answers. */
function workspaceMarkers(wsId: string): string[] {
  const out = [wsId];
  for (const name of tablesWithWorkspaceId()) {
    const cols = (t.deps.sqlite.query(`PRAGMA table_info("${name}")`).all() as { name: string }[]).map((c) => c.name);
    for (const col of ["id", "email"].filter((c) => cols.includes(c))) {
      for (const r of t.deps.sqlite.query(`SELECT "${col}" AS v FROM "${name}" WHERE workspace_id = ?`).all(wsId) as { v: string }[]) out.push(r.v);
    }
  }
  return out;
}

interface World {
  a: TestWorkspace;
  b: TestWorkspace;
  tokens: Record<Role, string>;
  keyA: string;
  keyB: string;
  revokedA: string;
}

/** Fresh workspaces for each route, so one route's allowed changes cannot affect another's cases. */
async function world(): Promise<World> {
  const a = await createWorkspace(t, { planId: "matrix", status: "active" });
  const b = await createWorkspace(t, { planId: "matrix", status: "active" });
  const tokens = { owner: a.owner.token } as Record<Role, string>;
  for (const role of ["admin", "agent", "viewer"] as const) tokens[role] = (await a.member(role)).token;
  const key = async (ws: TestWorkspace) => (await t.request("POST", "/api/api-keys", { token: ws.owner.token, body: { name: "matrix" } })).body.data;
  const revoked = await key(a);
  await t.request("DELETE", `/api/api-keys/${revoked.id}`, { token: a.owner.token });
  return { a, b, tokens, keyA: (await key(a)).key, keyB: (await key(b)).key, revokedA: revoked.key };
}

const PARAM = /\{(\w+)\}/g;

async function build(route: Route, rule: Rule, ws: TestWorkspace) {
  const ctx = { t, ws };
  const params = rule.params ? await rule.params(ctx) : {};
  const path = route.path.replace(PARAM, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`${route.key}: the rule has no value for path parameter {${name}}: give it a params builder`);
    return encodeURIComponent(v);
  });
  return { path, body: rule.body ? await rule.body(ctx) : undefined };
}

type Cred = { token?: string; apiKey?: string };

async function send(route: Route, rule: Rule, ws: TestWorkspace, cred: Cred) {
  const { path, body } = await build(route, rule, ws);
  return t.request(route.method, path, { ...cred, body });
}

/** A refused request: the status and code, and not one row changed. */
async function expectRefused(route: Route, rule: Rule, ws: TestWorkspace, cred: Cred, status: number, code: string, who: string) {
  const { path, body } = await build(route, rule, ws);
  const before = dbDigest();
  const r = await t.request(route.method, path, { ...cred, body });
  expect({ who, status: r.status, code: r.body?.code }).toEqual({ who, status, code });
  expect({ who, unchanged: dbDigest() === before }).toEqual({ who, unchanged: true });
}

async function expectAllowed(route: Route, rule: Rule, ws: TestWorkspace, cred: Cred, who: string) {
  const r = await send(route, rule, ws, cred);
  const refused = r.status === 401 || r.status === 404 || (r.status === 403 && r.body?.code === "FORBIDDEN");
  const good = rule.ok ? rule.ok.includes(r.status) : !refused;
  // the answer is shown when it is not what an allowed caller should get
  expect({ who, status: r.status, answer: good ? "allowed" : r.body }).toEqual({ who, status: r.status, answer: "allowed" });
}

describe("permission matrix", () => {
  test("every route of the OpenAPI document is classified", () => {
    const unclassified = routes.filter((r) => !RULES[r.key]).map((r) => r.key);
    expect(unclassified).toEqual([]);
    const needPerm = routes.filter((r) => RULES[r.key] && r.method !== "GET" && !["public", "registration"].includes(RULES[r.key]!.auth ?? "jwt") && !RULES[r.key]!.perm).map((r) => r.key);
    expect(needPerm).toEqual([]);
    expect(routes.length).toBeGreaterThan(10);
  });

  test("stale rules name routes that exist", () => {
    const known = new Set(routes.map((r) => r.key));
    expect(Object.keys(RULES).filter((k) => !known.has(k))).toEqual([]);
  });

  for (const route of routes) {
    const rule = RULES[route.key];
    if (!rule) continue; // reported by the classification test
    const auth = rule.auth ?? "jwt";
    const perm: Permission = rule.perm ?? "read";

    test(`${route.key} [${auth}${auth === "public" ? "" : `, ${perm}`}]`, async () => {
      const w = await world();
      if (auth === "registration") {
        await expectRefused(route, rule, w.a, {}, 401, "UNAUTHORIZED", "no credential");
        await expectRefused(route, rule, w.a, { token: w.tokens.owner }, 401, "UNAUTHORIZED", "access token as registration token");
        await expectRefused(route, rule, w.a, { apiKey: w.keyA }, 401, "UNAUTHORIZED", "API key");
        return;
      }
      const declared = { public: [], jwt: ["bearer"], apiKey: ["apiKey"], jwtOrApiKey: ["apiKey", "bearer"] }[auth];
      expect({ route: route.key, security: route.security }).toEqual({ route: route.key, security: declared });

      if (auth === "public") {
        const r = await send(route, rule, w.a, {});
        expect({ route: route.key, status: r.status === 401 || r.status === 403 ? r.status : "not refused" }).toEqual({ route: route.key, status: "not refused" });
        return;
      }

      // refused: no credential, a revoked key, the wrong kind of credential
      await expectRefused(route, rule, w.a, {}, 401, "UNAUTHORIZED", "no credential");
      await expectRefused(route, rule, w.a, { apiKey: w.revokedA }, 401, "UNAUTHORIZED", "revoked API key");
      if (auth === "jwt") await expectRefused(route, rule, w.a, { apiKey: w.keyA }, 401, "UNAUTHORIZED", "API key on a JWT route");
      if (auth === "apiKey") await expectRefused(route, rule, w.a, { token: w.tokens.owner }, 401, "UNAUTHORIZED", "JWT on an API-key route");

      // roles (D5): refused ones first, while the workspace is as built
      const viaJwt = auth !== "apiKey";
      if (viaJwt) for (const role of ROLES.filter((x) => !D5[perm].includes(x))) await expectRefused(route, rule, w.a, { token: w.tokens[role] }, 403, "FORBIDDEN", role);
      if (!viaJwt && !D5[perm].includes("admin")) await expectRefused(route, rule, w.a, { apiKey: w.keyA }, 403, "FORBIDDEN", "API key (admin)");

      // another workspace's owner (or key): ids of this workspace answer 404; lists show only its own data
      const otherCred = viaJwt ? { token: w.b.owner.token } : { apiKey: w.keyB };
      const idRoute = PARAM.test(route.path) || !!rule.bodyIds;
      PARAM.lastIndex = 0;
      if (idRoute) {
        await expectRefused(route, rule, w.a, otherCred, 404, "NOT_FOUND", "another workspace's owner");
      } else {
        await rule.seed?.({ t, ws: w.a });
        const before = workspaceDigest(w.a.id);
        const markers = workspaceMarkers(w.a.id);
        const r = await send(route, rule, w.b, otherCred);
        const text = JSON.stringify(r.body);
        expect({ who: "another workspace's owner", leaked: markers.filter((m) => text.includes(m)) }).toEqual({ who: "another workspace's owner", leaked: [] });
        expect({ who: "another workspace's owner", untouched: workspaceDigest(w.a.id) === before }).toEqual({ who: "another workspace's owner", untouched: true });
      }

      // allowed: each permitted role (owner last: ownership transfer changes who the owner is)
      if (viaJwt) for (const role of ROLES.filter((x) => D5[perm].includes(x)).reverse()) await expectAllowed(route, rule, w.a, { token: w.tokens[role] }, role);
      if (auth !== "jwt" && D5[perm].includes("admin")) await expectAllowed(route, rule, w.a, { apiKey: w.keyA }, "API key");
    });
  }
});
