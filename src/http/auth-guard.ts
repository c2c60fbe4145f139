import { Elysia } from "elysia";
import { can, type Permission } from "../auth/permissions.ts";
import type { Statement } from "bun:sqlite";
import { tokenKeys } from "../auth/tokens.ts";
import type { AppDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { lastUsedTracker } from "../modules/apikeys/last-used.ts";
import type { Role } from "../modules/users/table.ts";
import { admitRequest } from "./rate-limit.ts";
import { VerifiedTokens } from "./verified-tokens.ts";

/** Who is calling, resolved by the guards. */
export type AuthContext =
  | { kind: "user"; userId: string; workspaceId: string; role: Role }
  | { kind: "apiKey"; apiKeyId: string; workspaceId: string; role: Role };

const BEARER = /^Bearer\s+(\S+)$/i;

interface GuardStatements {
  member: Statement<{ role: Role; workspaceId: string }, [string]>;
  apiKey: Statement<{ id: string; workspaceId: string; expiresAt: number | null; revokedAt: number | null }, [string]>;
  tokens: VerifiedTokens;
}
const prepared = new WeakMap<AppDeps, GuardStatements>();

/** The guard's statements and verified-token cache, made once per runtime: they run on every authenticated request. */
function guardStatements(deps: AppDeps): GuardStatements {
  let s = prepared.get(deps);
  if (!s) {
    s = {
      member: deps.sqlite.prepare("SELECT role, workspace_id AS workspaceId FROM users WHERE id = ?"),
      apiKey: deps.sqlite.prepare("SELECT id, workspace_id AS workspaceId, expires_at AS expiresAt, revoked_at AS revokedAt FROM api_keys WHERE key_hash = ?"),
      tokens: new VerifiedTokens(tokenKeys(deps.config, deps.secrets.jwtSecret), deps.clock),
    };
    prepared.set(deps, s);
  }
  return s;
}

/** Verifies `Authorization: Bearer <access token>` and loads the member's current role. */
export async function authenticateJwt(deps: AppDeps, header: string | undefined): Promise<AuthContext> {
  const token = header?.match(BEARER)?.[1];
  if (!token) throw errors.unauthorized("Missing bearer token");
  const stmts = guardStatements(deps);
  const claims = await stmts.tokens.verify(token);
  if (!claims) throw errors.unauthorized("Invalid or expired token");
  // the role and membership are read fresh: a removed or demoted member loses access at once
  const user = stmts.member.get(claims.sub);
  if (!user || user.workspaceId !== claims.tenant) throw errors.unauthorized("Invalid or expired token");
  return { kind: "user", userId: claims.sub, workspaceId: user.workspaceId, role: user.role };
}

/** Verifies `X-API-Key` (D6): SHA-256 lookup, not revoked, not expired. A key acts as an admin of its workspace. */
export function authenticateApiKey(deps: AppDeps, key: string | undefined): AuthContext {
  if (!key || !key.startsWith("pk_")) throw errors.unauthorized("Missing or invalid API key");
  const hash = new Bun.CryptoHasher("sha256").update(key).digest("hex");
  const row = guardStatements(deps).apiKey.get(hash);
  const now = deps.clock.now().getTime();
  if (!row || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now)) throw errors.unauthorized("Missing or invalid API key");
  lastUsedTracker(deps.sqlite).touch(row.id, now); // batched: no write per request
  return { kind: "apiKey", apiKeyId: row.id, workspaceId: row.workspaceId, role: "admin" };
}

function requirePermission(auth: AuthContext, permission: Permission): void {
  if (!can(auth.role, permission)) throw errors.forbidden(`Your role (${auth.role}) cannot do this`);
}

type Credential = "jwt" | "apiKey" | "jwtOrApiKey";
type Headers = Record<string, string | undefined>;

async function authenticate(deps: AppDeps, kind: Credential, headers: Headers): Promise<AuthContext> {
  if (kind === "apiKey") return authenticateApiKey(deps, headers["x-api-key"]);
  if (kind === "jwtOrApiKey" && headers["x-api-key"] && !headers.authorization) return authenticateApiKey(deps, headers["x-api-key"]);
  return authenticateJwt(deps, headers.authorization);
}

const resolved = new WeakMap<Request, AuthContext>();

/**
 * Route options `{ jwt: "<permission>" }`, `{ apiKey: "<permission>" }` or
 * `{ jwtOrApiKey: "<permission>" }` put `auth` in the handler's context.
 * The check runs in `transform`, before body validation: a caller without a valid
 * credential gets 401 (and one without the permission 403) whatever the body says.
 */
export function authGuard(deps: AppDeps) {
  const guard = (kind: Credential, security: Record<string, string[]>[]) => (permission: Permission) => ({
    detail: { security },
    async transform({ request, headers, set }: { request: Request; headers: Headers; set: { headers: Record<string, unknown> } }) {
      const auth = await authenticate(deps, kind, headers);
      requirePermission(auth, permission);
      admitRequest(deps, auth, set as Parameters<typeof admitRequest>[2]);
      resolved.set(request, auth);
    },
    resolve({ request }: { request: Request }) {
      return { auth: resolved.get(request)! };
    },
  });
  return new Elysia({ name: "parley-auth-guard" }).macro({
    jwt: guard("jwt", [{ bearer: [] }]),
    apiKey: guard("apiKey", [{ apiKey: [] }]),
    jwtOrApiKey: guard("jwtOrApiKey", [{ bearer: [] }, { apiKey: [] }]),
  });
}
