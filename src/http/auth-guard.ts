import { Elysia } from "elysia";
import { can, type Permission } from "../auth/permissions.ts";
import type { Database } from "bun:sqlite";
import { tokenKeys, type TokenClaims } from "../auth/tokens.ts";
import { oncePer } from "../db/prepared.ts";
import { CACHED_TABLES, readCache } from "../db/read-cache.ts";
import { memoSpace, snapshotMemo } from "../db/snapshot-memo.ts";
import { idleSqlite } from "../db/sqlite.ts";
import type { AppDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { limitsOfText, type PlanLimits } from "../modules/billing/plans.ts";
import { keyByHash, type GuardKeyRow } from "../modules/apikeys/repo.ts";
import { profileById, type ProfileRow } from "../modules/users/repo.ts";
import type { AuthContext } from "../auth/context.ts";
import { admitRequest } from "./rate-limit.ts";
import { readOnce } from "./read-once.ts";
import { RequestSlot } from "./request-slot.ts";
import { VerifiedTokens } from "./verified-tokens.ts";

const BEARER = /^Bearer\s+(\S+)$/i;

/** The guard's verified-token cache, made once per runtime: it runs on every authenticated request. */
const verifiedTokens = oncePer((deps: AppDeps) => new VerifiedTokens(tokenKeys(deps.config, deps.secrets.jwtSecret), deps.clock));

/** The 401 of an API key sent as a bearer token: where keys go instead. */
const KEY_AS_BEARER = "API keys go in the X-API-Key header (X-API-Key: pk_...), not in Authorization: Bearer; Authorization carries a dashboard access token";
/** The 401 of an API key on a route that takes only a dashboard login. */
const KEY_ON_JWT_ROUTE = "This route takes a dashboard access token (Authorization: Bearer <accessToken>); API keys (X-API-Key) work under /api/external and on POST /api/v1/messages/send";

/** The claims of a valid `Authorization: Bearer <access token>`: at once when verified before, else a promise. */
function jwtClaims(deps: AppDeps, header: string | undefined): TokenClaims | Promise<TokenClaims> {
  const token = header?.match(BEARER)?.[1];
  if (!token) throw errors.unauthorized("Missing bearer token");
  if (token.startsWith("pk_")) throw errors.unauthorized(KEY_AS_BEARER);
  const tokens = verifiedTokens(deps);
  return tokens.cached(token) ?? verified(tokens.verify(token));
}

async function verified(claims: Promise<TokenClaims | null>): Promise<TokenClaims> {
  const c = await claims;
  if (!c) throw errors.unauthorized("Invalid or expired token");
  return c;
}

/** Reads a value by a memo key: `read()` runs, or the value read before answers (see lookup). */
type Lookup = <R>(space: number, key: unknown, read: () => R) => R;
const MEMBERS = memoSpace(); // users rows by user id
const API_KEYS = memoSpace(); // api_keys rows (with plan limits) by key hash
const noop = () => {};
/** kept values that were promises and rejected: read again, not answered from the memo */
const failed = new WeakSet<Promise<unknown>>();

/**
 * The synchronous path, on SQLite's connection while no transaction holds it (idleSqlite),
 * in one turn of the event loop: reads through the snapshot memo. A row read before is
 * answered from memory while nothing has been committed since, by any process
 * (src/db/snapshot-memo.ts), so a revoked key, a removed member or a changed role is seen by
 * the next request as with a fresh read. `enter` runs before each real read (it opens the
 * request's read transaction). While a transaction holds SQLite's connection the guard reads
 * through the store (no memo); on PostgreSQL it reads through the store's read cache
 * (src/db/read-cache.ts, see jwtMember).
 */
function lookup(sqlite: Database, enter: () => void): Lookup {
  const memo = snapshotMemo(sqlite);
  if (!memo.open()) return (_space, _key, read) => (enter(), read());
  return <R>(space: number, key: unknown, read: () => R): R => {
    let value = memo.get<R>(space, key);
    if (value === undefined || (value instanceof Promise && failed.has(value))) {
      enter();
      value = read();
      // a promise (a route's load through the store) is kept too: it reads a state at least as new as the memo's
      if (value instanceof Promise) value.catch(() => failed.add(value as Promise<unknown>));
      memo.set(space, key, value);
    }
    return value;
  };
}

type MemberCaller = { auth: AuthContext; row: ProfileRow };

/** The member a token names, and its users row, as of the last commit. */
function memberOf(claims: TokenClaims, row: ProfileRow | null | undefined): MemberCaller {
  // the role and membership are those of the last commit: a removed or demoted member loses access at once
  if (!row || row.tenantId !== claims.tenant) throw errors.unauthorized("Invalid or expired token");
  return { auth: { kind: "user", userId: claims.sub, workspaceId: row.tenantId, role: row.role }, row };
}

/** jwtMember on SQLite's idle connection, through `look`. */
function jwtMemberSync(deps: AppDeps, claims: TokenClaims, look: Lookup): MemberCaller {
  const member = profileById(deps.db).sync!;
  return memberOf(claims, look(MEMBERS, claims.sub, () => member.get(claims.sub)));
}

/**
 * The member a token names: synchronously on SQLite's idle connection, else read through the
 * store; on PostgreSQL through its read cache (src/db/read-cache.ts: kept until the users,
 * workspaces, plans or api_keys tables change on any node).
 */
function jwtMember(deps: AppDeps, claims: TokenClaims): MemberCaller | Promise<MemberCaller> {
  const sqlite = idleSqlite(deps.db);
  if (sqlite) return jwtMemberSync(deps, claims, lookup(sqlite, noop));
  const row = cachedRead(deps, MEMBERS, claims.sub, () => profileById(deps.db).get(claims.sub));
  return row instanceof Promise ? row.then((r) => memberOf(claims, r)) : memberOf(claims, row);
}

/** A read outside a transaction on PostgreSQL goes through the read cache; inside one (or on SQLite) it reads. */
function cachedRead<R>(deps: AppDeps, space: number, key: string, read: () => Promise<R>): R | Promise<R> {
  return deps.db.engine === "postgres" && !deps.db.inTx ? readCache(deps.db).get(space, key, read) : read();
}

/** Verifies `Authorization: Bearer <access token>` and loads the member's current role. */
export async function authenticateJwt(deps: AppDeps, header: string | undefined): Promise<AuthContext> {
  return (await jwtMember(deps, await jwtClaims(deps, header))).auth;
}

type ApiKeyCaller = { auth: AuthContext; row: GuardKeyRow; limits: PlanLimits | undefined };

/** The hash an `X-API-Key` is stored by; 401 for a missing or malformed key. */
function apiKeyHash(key: string | undefined): string {
  if (!key || !key.startsWith("pk_")) throw errors.unauthorized("Missing or invalid API key");
  return Bun.SHA256.hash(key, "hex");
}

/**
 * Verifies `X-API-Key` (docs/api.md) from its row: SHA-256 lookup, not revoked, not expired. A key acts as an
 * admin of its workspace. The caller, and the limits of its plan in force when the plan is in the table.
 */
function apiKeyOf(deps: AppDeps, row: GuardKeyRow | null | undefined): ApiKeyCaller {
  const now = deps.clock.nowMs();
  if (!row || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now)) throw errors.unauthorized("Missing or invalid API key");
  deps.lastUsed.touch(row.id, now); // batched: no write per request
  return {
    auth: { kind: "apiKey", apiKeyId: row.id, workspaceId: row.workspaceId, role: "admin" },
    row,
    limits: row.limits === null ? undefined : limitsOfText(row.limits),
  };
}

/** apiKeyCaller on SQLite's idle connection, through `look`. */
function apiKeyCallerSync(deps: AppDeps, key: string | undefined, look: Lookup): ApiKeyCaller {
  const hash = apiKeyHash(key);
  const stmt = keyByHash(deps.db).sync!;
  return apiKeyOf(deps, look(API_KEYS, hash, () => stmt.get(hash)));
}

/** The caller an API key names, read through the store (on PostgreSQL through its read cache, see jwtMember). */
async function apiKeyCaller(deps: AppDeps, key: string | undefined): Promise<ApiKeyCaller> {
  const hash = apiKeyHash(key);
  const row = cachedRead(deps, API_KEYS, hash, () => keyByHash(deps.db).get(hash));
  return apiKeyOf(deps, row instanceof Promise ? await row : row);
}

/** The callers a credential kind resolves to. */
interface Callers {
  apiKey: ApiKeyCaller;
  jwt: MemberCaller;
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
  if (key && !authorization) {
    const sqlite = idleSqlite(deps.db);
    early.set(request, { kind: "apiKey", caller: sqlite ? apiKeyCallerSync(deps, key, lookup(sqlite, noop)) : await apiKeyCaller(deps, key) });
  } else {
    let claims = jwtClaims(deps, authorization ?? undefined);
    if (claims instanceof Promise) claims = await claims;
    let caller = jwtMember(deps, claims);
    if (caller instanceof Promise) caller = await caller;
    early.set(request, { kind: "jwt", caller });
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
 * A route option's long form: `load` reads the route's data right after the permission check;
 * the handler takes it (resolved) with `guardLoaded`. Nothing is written. On SQLite's
 * synchronous path the load starts in the same read transaction as the credential (one set of
 * SQLite locks instead of two: all of it when it reads synchronously). Its result (or promise)
 * must depend on the database and `auth` alone (not on the time or on memory): on SQLite it is
 * kept in the snapshot memo and answers the same caller until the next commit.
 */
export interface GuardOptions {
  permission: Permission;
  load: (auth: AuthContext) => unknown;
  /**
   * The tables `load` reads. When the PostgreSQL store's read cache watches them all
   * (CACHED_TABLES in src/db/read-cache.ts), the load is kept there too, by the caller's id,
   * and dropped with the caller's row when any watched table changes on any node. Without it the load is
   * read on every request on PostgreSQL.
   */
  reads?: readonly string[];
}

/** The id of the key or member a caller is (ids are UUIDs: a key's and a member's never meet). */
function callerId(auth: AuthContext): string {
  return auth.kind === "apiKey" ? auth.apiKeyId : auth.userId;
}

/** Whether a load reading `tables` may be kept in the PostgreSQL read cache (every table is watched). */
function keepable(tables: readonly string[] | undefined): boolean {
  return tables !== undefined && tables.length > 0 && tables.every((t) => (CACHED_TABLES as readonly string[]).includes(t));
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
  type Read<C> = { caller: C; loaded: unknown };
  /**
   * The caller's credential row and the route's load, read together; permission checked
   * between (a caller the gate verified is not read again). On SQLite's idle connection they
   * are read synchronously, in one read transaction, through the snapshot memo; a route's load
   * is kept by the credential's row (in the route's own memo space): the row decides the whole
   * caller (identity, workspace, role), and it is the same object until the next commit.
   */
  const readSync = <C extends { auth: AuthContext; row: object }>(sqlite: Database, caller: (look: Lookup) => C, permission: Permission, load: GuardOptions["load"] | undefined, loadSpace: number): Read<C> =>
    readOnce(sqlite, load !== undefined, (enter) => {
      const look = lookup(sqlite, enter);
      const c = caller(look);
      requirePermission(c.auth, permission);
      return { caller: c, loaded: load && look(loadSpace, c.row, () => load(c.auth)) };
    });
  /**
   * The same through the store (PostgreSQL, or while a transaction holds SQLite's connection).
   * On PostgreSQL a load declared keepable is kept in the read cache by the caller's id (see
   * GuardOptions.reads): whatever decides the caller (its key or member row, workspace, plan) is
   * in a watched table, so a change to it drops the kept load with the row.
   */
  const readAsync = async <C extends { auth: AuthContext }>(caller: C | Promise<C>, permission: Permission, load: GuardOptions["load"] | undefined, loadSpace: number, keep: boolean): Promise<Read<C>> => {
    const c = await caller;
    requirePermission(c.auth, permission);
    if (!load) return { caller: c, loaded: undefined };
    if (keep && deps.db.engine === "postgres" && !deps.db.inTx) return { caller: c, loaded: await readCache(deps.db).get(loadSpace, callerId(c.auth), async () => load(c.auth)) };
    return { caller: c, loaded: await load(c.auth) };
  };
  const guard = (kind: Credential, security: Record<string, string[]>[]) => (option: Permission | GuardOptions) => {
    const permission = typeof option === "string" ? option : option.permission;
    const load = typeof option === "string" ? undefined : option.load;
    const keep = typeof option !== "string" && keepable(option.reads);
    const loadSpace = memoSpace();
    const admitApiKey = async (request: Request, set: HeaderSet, key: string | null) => {
      const verified = earlyCaller(request, "apiKey");
      if (!verified && !key && request.headers.get("authorization")?.match(BEARER)?.[1]?.startsWith("pk_")) throw errors.unauthorized(KEY_AS_BEARER);
      const sqlite = idleSqlite(deps.db);
      const { caller, loaded } = sqlite
        ? readSync(sqlite, (look) => verified ?? apiKeyCallerSync(deps, key ?? undefined, look), permission, load, loadSpace)
        : await readAsync(verified ?? apiKeyCaller(deps, key ?? undefined), permission, load, loadSpace, keep);
      const admitted = admitRequest(deps, caller.auth, set, caller.limits);
      if (admitted) await admitted;
      if (load) loads.set(request, loaded instanceof Promise ? await loaded : loaded);
      resolved.set(request, caller.auth);
    };
    const admitJwt = async (request: Request, set: HeaderSet, claims: TokenClaims | undefined) => {
      const verified = earlyCaller(request, "jwt");
      const sqlite = idleSqlite(deps.db);
      const { caller, loaded } = sqlite
        ? readSync(sqlite, (look) => verified ?? jwtMemberSync(deps, claims!, look), permission, load, loadSpace)
        : await readAsync(verified ?? jwtMember(deps, claims!), permission, load, loadSpace, keep);
      // a member's admission is the rate limit alone: decided at once in memory (SQLite), a
      // statement on PostgreSQL, where the nodes share the count
      const admitted = admitRequest(deps, caller.auth, set);
      if (admitted) await admitted;
      if (load) loads.set(request, loaded instanceof Promise ? await loaded : loaded);
      callerRows.set(request, caller.row);
      resolved.set(request, caller.auth);
    };
    // the credential may be read through the store (PostgreSQL, a transaction holding SQLite's
    // connection, a route's load, the daily quota's row): every transform may wait
    const transform = async function transform({ request, set }: { request: Request; set: HeaderSet }) {
      const key = request.headers.get("x-api-key");
      if (kind === "apiKey") return admitApiKey(request, set, key);
      const authorization = request.headers.get("authorization");
      if (kind === "jwtOrApiKey" && key && !authorization) return admitApiKey(request, set, key);
      if (key && !authorization && !earlyCaller(request, "jwt")) throw errors.unauthorized(KEY_ON_JWT_ROUTE);
      let claims = earlyCaller(request, "jwt") ? undefined : jwtClaims(deps, authorization ?? undefined);
      if (claims instanceof Promise) claims = await claims; // a token not verified before
      return admitJwt(request, set, claims);
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
