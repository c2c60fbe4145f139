// The permission matrix: every route of the OpenAPI document x {owner, admin, agent, viewer,
// another workspace's owner, no credential, revoked key, the wrong kind of credential}.
// Routes come from GET /openapi.json, so a new route fails this test until it is classified
// in RULES (matrix-rules.ts: one line per route; most need only `perm` and an id builder).
import { afterAll, describe, expect, test } from "bun:test";
import { upsertPlan } from "../../src/modules/billing/plans.ts";
import type { Role } from "../../src/modules/users/roles.ts";
import { ROLE_TABLE, ROLES, RULES, type Permission, type Rule } from "./matrix-rules.ts";
import { createTestApp } from "../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../helpers/fixtures.ts";

// a file database, as in production: the guard answers repeated credentials from its snapshot memo
// webhooks point at a closed loopback port: allowed by the operator settings, never answered
const t = await createTestApp({ fileDb: true, config: { rateLimitPerMinute: 1_000_000, webhookAllowHttp: true, webhookAllowPrivate: true, webhookTimeoutMs: 500 } });
afterAll(() => t.close());
// quotas must not be what refuses a request here
await upsertPlan(t.deps.db, "matrix", { name: "Matrix", monthlyPaise: 100, annualPaise: 1000, limits: { sessions: 1000, messagesPerMonth: 1e6, contacts: 1e6, apiRequestsPerDay: 1e6, webhooks: 1000, teamSeats: 1000, campaigns: true } }, 0);
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

const db = t.deps.db;
const pg = db.engine === "postgres";

/** The tables of the database (either engine). */
async function tableNames(): Promise<string[]> {
  const rows = pg
    ? await db.prepare<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'").all()
    : await db.prepare<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
  return rows.map((r) => r.name).sort();
}

/** The columns of a table (either engine). */
async function columnsOf(name: string): Promise<string[]> {
  const rows = pg
    ? await db.prepare<{ name: string }>("SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?").all(name)
    : await db.prepare<{ name: string }>(`PRAGMA table_info("${name}")`).all();
  return rows.map((c) => c.name);
}

/** Rows as text, in an order that does not depend on the engine (nor on SQLite's rowid). */
const rowsText = (rows: unknown[]) => JSON.stringify(rows.map((r) => JSON.stringify(r)).sort());

/** Digest of every table: a refused request must leave it identical. */
async function dbDigest(): Promise<string> {
  // usage_counters is metering, not data: an authenticated API-key request counts against its
  // own workspace's daily quota even when the answer is 404; so is rate_windows, the rate
  // limits' counts on PostgreSQL (every request is counted, a refused one too); cluster_events
  // is the relay of committed events to the other nodes (PostgreSQL), written by the work an
  // earlier, permitted request left running
  const metering = new Set(["__drizzle_migrations", "usage_counters", "rate_windows", "cluster_events"]);
  const tables = (await tableNames()).filter((name) => !metering.has(name));
  const h = new Bun.CryptoHasher("sha256");
  for (const name of tables) h.update(name).update(rowsText(await db.prepare(`SELECT * FROM "${name}"`).all()));
  return h.digest("hex");
}

async function tablesWithWorkspaceId(): Promise<string[]> {
  const out: string[] = [];
  for (const name of await tableNames()) if ((await columnsOf(name)).includes("workspace_id")) out.push(name);
  return out;
}

/** Digest of one workspace's rows in every table that has a workspace_id. */
async function workspaceDigest(wsId: string): Promise<string> {
  const h = new Bun.CryptoHasher("sha256").update(JSON.stringify(await db.prepare("SELECT * FROM workspaces WHERE id = ?").get(wsId)));
  for (const name of await tablesWithWorkspaceId()) h.update(name).update(rowsText(await db.prepare(`SELECT * FROM "${name}" WHERE workspace_id = ?`).all(wsId)));
  return h.digest("hex");
}

/** Ids and emails of one workspace's rows: none may appear in another workspace's answers. */
async function workspaceMarkers(wsId: string): Promise<string[]> {
  const out = [wsId];
  for (const name of await tablesWithWorkspaceId()) {
    const cols = await columnsOf(name);
    for (const col of ["id", "email"].filter((c) => cols.includes(c))) {
      for (const r of await db.prepare<{ v: string }>(`SELECT "${col}" AS v FROM "${name}" WHERE workspace_id = ?`).all(wsId)) out.push(r.v);
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
  const before = await dbDigest();
  const r = await t.request(route.method, path, { ...cred, body });
  expect({ who, status: r.status, code: r.body?.code }).toEqual({ who, status, code });
  expect({ who, unchanged: (await dbDigest()) === before }).toEqual({ who, unchanged: true });
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

      // roles (docs/team-and-billing.md): refused ones first, while the workspace is as built
      const viaJwt = auth !== "apiKey";
      if (viaJwt) for (const role of ROLES.filter((x) => !ROLE_TABLE[perm].includes(x))) await expectRefused(route, rule, w.a, { token: w.tokens[role] }, 403, "FORBIDDEN", role);
      if (!viaJwt && !ROLE_TABLE[perm].includes("admin")) await expectRefused(route, rule, w.a, { apiKey: w.keyA }, 403, "FORBIDDEN", "API key (admin)");

      // another workspace's owner (or key): ids of this workspace answer 404; lists show only its own data
      const otherCred = viaJwt ? { token: w.b.owner.token } : { apiKey: w.keyB };
      const idRoute = PARAM.test(route.path) || !!rule.bodyIds;
      PARAM.lastIndex = 0;
      if (idRoute) {
        await expectRefused(route, rule, w.a, otherCred, 404, "NOT_FOUND", "another workspace's owner");
      } else {
        await rule.seed?.({ t, ws: w.a });
        const before = await workspaceDigest(w.a.id);
        const markers = await workspaceMarkers(w.a.id);
        const r = await send(route, rule, w.b, otherCred);
        const text = JSON.stringify(r.body);
        expect({ who: "another workspace's owner", leaked: markers.filter((m) => text.includes(m)) }).toEqual({ who: "another workspace's owner", leaked: [] });
        expect({ who: "another workspace's owner", untouched: (await workspaceDigest(w.a.id)) === before }).toEqual({ who: "another workspace's owner", untouched: true });
      }

      // allowed: each permitted role (owner last: ownership transfer changes who the owner is)
      if (viaJwt) for (const role of ROLES.filter((x) => ROLE_TABLE[perm].includes(x)).reverse()) await expectAllowed(route, rule, w.a, { token: w.tokens[role] }, role);
      if (auth !== "jwt" && ROLE_TABLE[perm].includes("admin")) await expectAllowed(route, rule, w.a, { apiKey: w.keyA }, "API key");
    });
  }
});
