import { Elysia } from "elysia";
import { can, type Permission } from "../auth/permissions.ts";
import type { Statement } from "bun:sqlite";
import { tokenKeys, type TokenClaims } from "../auth/tokens.ts";
import { oncePer } from "../db/prepared.ts";
import { memoSpace, snapshotMemo } from "../db/snapshot-memo.ts";
import type { AppDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { lastUsedTracker } from "../modules/apikeys/last-used.ts";
import { limitsOfText, type PlanLimits } from "../modules/billing/plans.ts";
import { effectivePlanIdSql } from "../modules/billing/quota.ts";
import { PROFILE_COLUMNS, type ProfileRow } from "../modules/auth/repo.ts";
import type { Role } from "../modules/users/table.ts";
import { admitRequest } from "./rate-limit.ts";
import { readOnce } from "./read-once.ts";
import { RequestSlot } from "./request-slot.ts";
import { VerifiedTokens } from "./verified-tokens.ts";

/** Who is calling, resolved by the guards. */
export type AuthContext =
  | { kind: "user"; userId: string; workspaceId: string; role: Role }
  | { kind: "apiKey"; apiKeyId: string; workspaceId: string; role: Role };

const BEARER = /^Bearer\s+(\S+)$/i;

interface ApiKeyRow {
  id: string;
  workspaceId: string;
  expiresAt: number | null;
  revokedAt: number | null;
  /** the `limits` text of the plan in force; null when it is not in the table (the built-in catalogue answers then) */
  limits: string | null;
}

interface GuardStatements {
  member: Statement<ProfileRow, [string]>;
  apiKey: Statement<ApiKeyRow, [string]>;
  tokens: VerifiedTokens;
}

/**
 * The key by its hash, with the limits of its workspace's plan in force: the daily quota
 * needs them on every API-key request, and one statement costs less than three (statements,
 * not their rows, are the cost of a request). Subqueries, not joins: see auth/repo.ts.
 */
const API_KEY_SQL = `SELECT k.id, k.workspace_id AS workspaceId, k.expires_at AS expiresAt, k.revoked_at AS revokedAt,
    (SELECT (SELECT p.limits FROM plans p WHERE p.id = ${effectivePlanIdSql("w.subscription_status", "w.plan_id")})
      FROM workspaces w WHERE w.id = k.workspace_id) AS limits
  FROM api_keys k WHERE k.key_hash = ?`;
/** The guard's statements and verified-token cache, made once per runtime: they run on every authenticated request. */
const guardStatements = oncePer(
  (deps: AppDeps): GuardStatements => ({
    // the whole profile, not just the role: GET /api/auth/profile answers from this row (callerRow)
    member: deps.sqlite.prepare(`SELECT ${PROFILE_COLUMNS} FROM users u WHERE u.id = ?`),
    apiKey: deps.sqlite.prepare(API_KEY_SQL),
    tokens: new VerifiedTokens(tokenKeys(deps.config, deps.secrets.jwtSecret), deps.clock),
  }),
);

/** The 401 of an API key sent as a bearer token: where keys go instead. */
const KEY_AS_BEARER = "API keys go in the X-API-Key header (X-API-Key: pk_...), not in Authorization: Bearer; Authorization carries a dashboard access token";
/** The 401 of an API key on a route that takes only a dashboard login. */
const KEY_ON_JWT_ROUTE = "This route takes a dashboard access token (Authorization: Bearer <accessToken>); API keys (X-API-Key) work under /api/external and on POST /api/v1/messages/send";

/** The claims of a valid `Authorization: Bearer <access token>`: at once when verified before, else a promise. */
function jwtClaims(deps: AppDeps, header: string | undefined): TokenClaims | Promise<TokenClaims> {
  const token = header?.match(BEARER)?.[1];
  if (!token) throw errors.unauthorized("Missing bearer token");
  if (token.startsWith("pk_")) throw errors.unauthorized(KEY_AS_BEARER);
  const tokens = guardStatements(deps).tokens;
  return tokens.cached(token) ?? verified(tokens.verify(token));
}

async function verified(claims: Promise<TokenClaims | null>): Promise<TokenClaims> {
  const c = await claims;
  if (!c) throw errors.unauthorized("Invalid or expired token");
  return c;
}

/** Reads a value by a memo key: `read()` runs, or the value read before answers (see lookup). */
type Lookup = <R>(space: number, key: unknown, read: () => R) => R;
const direct: Lookup = (_space, _key, read) => read();
const MEMBERS = memoSpace(); // users rows by user id
const API_KEYS = memoSpace(); // api_keys rows (with plan limits) by key hash
const noop = () => {};

/**
 * Reads through the snapshot memo: a row read before is answered from memory while nothing
 * has been committed since, by any process (src/db/snapshot-memo.ts), so a revoked key, a
 * removed member or a changed role is seen by the next request as with a fresh read.
 * `enter` runs before each real read (it opens the request's read transaction).
 */
function lookup(deps: AppDeps, enter: () => void): Lookup {
  const memo = snapshotMemo(deps.sqlite);
  if (!memo.open()) return (_space, _key, read) => (enter(), read());
  return <R>(space: number, key: unknown, read: () => R): R => {
    let value = memo.get<R>(space, key);
    if (value === undefined) {
      enter();
      memo.set(space, key, (value = read()));
    }
    return value;
  };
}

/** The member a token names, and its users row, as of the last commit. */
function jwtMember(deps: AppDeps, claims: TokenClaims, look: Lookup = direct): { auth: AuthContext; row: ProfileRow } {
  // the role and membership are those of the last commit: a removed or demoted member loses access at once
  const row = look(MEMBERS, claims.sub, () => guardStatements(deps).member.get(claims.sub));
  if (!row || row.tenantId !== claims.tenant) throw errors.unauthorized("Invalid or expired token");
  return { auth: { kind: "user", userId: claims.sub, workspaceId: row.tenantId, role: row.role }, row };
}

/** Verifies `Authorization: Bearer <access token>` and loads the member's current role. */
export async function authenticateJwt(deps: AppDeps, header: string | undefined): Promise<AuthContext> {
  return jwtMember(deps, await jwtClaims(deps, header)).auth;
}

/**
 * Verifies `X-API-Key` (D6): SHA-256 lookup, not revoked, not expired. A key acts as an admin of
 * its workspace. The caller, and the limits of its plan in force when the plan is in the table.
 */
function apiKeyCaller(deps: AppDeps, key: string | undefined, look: Lookup = direct): { auth: AuthContext; row: ApiKeyRow; limits: PlanLimits | undefined } {
  if (!key || !key.startsWith("pk_")) throw errors.unauthorized("Missing or invalid API key");
  const hash = Bun.SHA256.hash(key, "hex");
  const row = look(API_KEYS, hash, () => guardStatements(deps).apiKey.get(hash));
  const now = deps.clock.nowMs();
  if (!row || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now)) throw errors.unauthorized("Missing or invalid API key");
  lastUsedTracker(deps.sqlite).touch(row.id, now); // batched: no write per request
  return {
    auth: { kind: "apiKey", apiKeyId: row.id, workspaceId: row.workspaceId, role: "admin" },
    row,
    limits: row.limits === null ? undefined : limitsOfText(row.limits),
  };
}

/** The callers a credential kind resolves to. */
interface Callers {
  apiKey: ReturnType<typeof apiKeyCaller>;
  jwt: ReturnType<typeof jwtMember>;
}
/** A credential the media gate verified at the start of the request (see verifyEarly). */
type Early = { kind: "apiKey"; caller: Callers["apiKey"] } | { kind: "jwt"; caller: Callers["jwt"] };
const early = new RequestSlot<Early>("early credential");

/**
 * Verifies a request's credential before its body is read (the media gate), the way the
 * route's guard would choose it (`X-API-Key` without `Authorization`, else the bearer token),
 * and keeps the result for that guard: the credential is read once per request, not twice.
 * What the guard still does itself: the permission, the route's load, rate limit and quota.
 */
export async function verifyEarly(deps: AppDeps, request: Request): Promise<void> {
  const key = request.headers.get("x-api-key");
  const authorization = request.headers.get("authorization");
  if (key && !authorization) early.set(request, { kind: "apiKey", caller: apiKeyCaller(deps, key, lookup(deps, noop)) });
  else {
    let claims = jwtClaims(deps, authorization ?? undefined);
    if (claims instanceof Promise) claims = await claims;
    early.set(request, { kind: "jwt", caller: jwtMember(deps, claims, lookup(deps, noop)) });
  }
}

/** The caller the gate verified for this request with the same kind of credential, if any. */
function earlyCaller<K extends keyof Callers>(request: Request, kind: K): Callers[K] | undefined {
  const e = early.get(request);
  return e?.kind === kind ? (e.caller as Callers[K]) : undefined;
}

function requirePermission(auth: AuthContext, permission: Permission): void {
  if (!can(auth.role, permission)) throw errors.forbidden(`Your role (${auth.role}) cannot do this`);
}

type Credential = "jwt" | "apiKey" | "jwtOrApiKey";

const resolved = new RequestSlot<AuthContext>("auth");
const callerRows = new RequestSlot<ProfileRow>("caller row");
const loads = new RequestSlot<unknown>("route load");

/** The users row the JWT guard read for this request (the caller's profile columns), if it ran. */
export function callerRow(request: Request): ProfileRow | undefined {
  return callerRows.get(request);
}

/** What the route's `load` read with the credential (see GuardOptions), if it ran. */
export function guardLoaded<T>(request: Request): T | undefined {
  return loads.get(request) as T | undefined;
}

/**
 * A route option's long form: `load` reads the route's data in the same read transaction as
 * the credential (one set of SQLite locks instead of two), right after the permission check;
 * the handler takes it with `guardLoaded`. Synchronous reads only; nothing is written. Its
 * result must depend on the database and `auth` alone (not on the time or on memory): it is
 * kept in the snapshot memo and answers the same caller until the next commit.
 */
export interface GuardOptions {
  permission: Permission;
  load: (auth: AuthContext) => unknown;
}

/**
 * Route options `{ jwt: "<permission>" }`, `{ apiKey: "<permission>" }` or
 * `{ jwtOrApiKey: "<permission>" }` (or a GuardOptions) put `auth` in the handler's context.
 * The check runs in `transform`, before body validation: a caller without a valid
 * credential gets 401 (and one without the permission 403) whatever the body says.
 * Headers are read from the request (not Elysia's `headers`, which copies them all).
 */
export function authGuard(deps: AppDeps) {
  type HeaderSet = Parameters<typeof admitRequest>[2];
  /**
   * The caller's credential row and the route's load, read together; permission checked
   * between (a caller the gate verified is not read again). A route's load is kept by the
   * credential's row (in the route's own memo space): the row decides the whole caller
   * (identity, workspace, role), and it is the same object until the next commit.
   */
  const read = <C extends { auth: AuthContext; row: object }>(caller: (look: Lookup) => C, permission: Permission, load: GuardOptions["load"] | undefined, loadSpace: number) =>
    readOnce(deps.sqlite, load !== undefined, (enter) => {
      const look = lookup(deps, enter);
      const c = caller(look);
      requirePermission(c.auth, permission);
      return { caller: c, loaded: load && look(loadSpace, c.row, () => load(c.auth)) };
    });
  const guard = (kind: Credential, security: Record<string, string[]>[]) => (option: Permission | GuardOptions) => {
    const permission = typeof option === "string" ? option : option.permission;
    const load = typeof option === "string" ? undefined : option.load;
    const loadSpace = memoSpace();
    const admitApiKey = (request: Request, set: HeaderSet, key: string | null) => {
      const verified = earlyCaller(request, "apiKey");
      if (!verified && !key && request.headers.get("authorization")?.match(BEARER)?.[1]?.startsWith("pk_")) throw errors.unauthorized(KEY_AS_BEARER);
      const { caller, loaded } = read((look) => verified ?? apiKeyCaller(deps, key ?? undefined, look), permission, load, loadSpace);
      admitRequest(deps, caller.auth, set, caller.limits);
      if (load) loads.set(request, loaded);
      resolved.set(request, caller.auth);
    };
    const admitJwt = (request: Request, set: HeaderSet, claims: TokenClaims | undefined) => {
      const verified = earlyCaller(request, "jwt");
      const { caller, loaded } = read((look) => verified ?? jwtMember(deps, claims!, look), permission, load, loadSpace);
      admitRequest(deps, caller.auth, set);
      if (load) loads.set(request, loaded);
      callerRows.set(request, caller.row);
      resolved.set(request, caller.auth);
    };
    // Elysia compiles a route's handler per hook: a transform that is not an async function, and
    // whose source has no `return f(` (its test for "may return a promise"), is called without
    // an await. An API key is checked synchronously, so its routes get that transform.
    const transform =
      kind === "apiKey"
        ? function transform({ request, set }: { request: Request; set: HeaderSet }) {
            admitApiKey(request, set, request.headers.get("x-api-key"));
          }
        : async function transform({ request, set }: { request: Request; set: HeaderSet }) {
            const key = request.headers.get("x-api-key");
            const authorization = request.headers.get("authorization");
            if (kind === "jwtOrApiKey" && key && !authorization) admitApiKey(request, set, key);
            else if (key && !authorization && !earlyCaller(request, "jwt")) throw errors.unauthorized(KEY_ON_JWT_ROUTE);
            else {
              let claims = earlyCaller(request, "jwt") ? undefined : jwtClaims(deps, authorization ?? undefined);
              if (claims instanceof Promise) claims = await claims; // a token not verified before
              admitJwt(request, set, claims);
            }
          };
    return {
      detail: { security },
      transform,
      resolve({ request }: { request: Request }) {
        return { auth: resolved.get(request)! };
      },
    };
  };
  return new Elysia({ name: "parley-auth-guard" }).macro({
    jwt: guard("jwt", [{ bearer: [] }]),
    apiKey: guard("apiKey", [{ apiKey: [] }]),
    jwtOrApiKey: guard("jwtOrApiKey", [{ bearer: [] }, { apiKey: [] }]),
  });
}
