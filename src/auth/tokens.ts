import { loadJose, loadedJose } from "./jose.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Role } from "../modules/users/roles.ts";

/** Every JWT Parley signs carries one of these in `typ`; a token is only accepted where its type fits. */
export type TokenType = "access" | "registration" | "login_challenge";

export const ACCESS_TTL_SECONDS = 15 * 60;
export const ACCESS_TTL_TEXT = "15m";

/** Lifetime of each token type (docs/authentication.md); a token whose iat is older than this is refused whatever its exp says. */
export const TOKEN_TTL_SECONDS: Record<TokenType, number> = {
  access: ACCESS_TTL_SECONDS,
  registration: 30 * 60,
  login_challenge: 10 * 60,
};

/** Longest token the guards will parse; anything longer is refused before any crypto. */
export const MAX_TOKEN_LENGTH = 4096;

const ROLE_VALUES: readonly string[] = ["owner", "admin", "agent", "viewer"];

export interface TokenClaims {
  sub: string;
  tenant: string;
  role?: Role;
  typ: TokenType;
  /** extra claims by type (e.g. the login challenge's id) */
  [k: string]: unknown;
}

export interface TokenKeys {
  secret: Uint8Array;
  issuer: string;
  audience: string;
}

/** Signing material from config and the data dir's secret. */
export function tokenKeys(config: Config, jwtSecret: string): TokenKeys {
  return { secret: new TextEncoder().encode(jwtSecret), issuer: config.jwtIssuer, audience: config.jwtAudience };
}

/** Signs an HS256 JWT with exp, iat, iss, aud, sub, tenant, role and typ. */
export async function signToken(keys: TokenKeys, clock: Clock, claims: TokenClaims, ttlSeconds: number): Promise<string> {
  const now = Math.floor(clock.now().getTime() / 1000);
  const { SignJWT } = loadedJose() ?? (await loadJose());
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(keys.issuer)
    .setAudience(keys.audience)
    .setSubject(claims.sub)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .setJti(Bun.randomUUIDv7())
    .sign(keys.secret);
}

/**
 * Verifies a JWT: HS256 only (no `none`, no other algorithm), signature, header typ JWT,
 * exp (required), iat (not in the future, not older than the type's lifetime), iss, aud, sub,
 * tenant, jti, the expected `typ` claim, and for access tokens a known role. Null on any failure.
 */
export async function verifyToken(keys: TokenKeys, clock: Clock, token: string, expected: TokenType): Promise<TokenClaims | null> {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  const { jwtVerify, errors: joseErrors } = loadedJose() ?? (await loadJose());
  try {
    const { payload } = await jwtVerify(token, keys.secret, {
      algorithms: ["HS256"],
      typ: "JWT",
      issuer: keys.issuer,
      audience: keys.audience,
      requiredClaims: ["exp", "iat", "sub", "tenant", "typ", "jti"],
      maxTokenAge: TOKEN_TTL_SECONDS[expected],
      currentDate: clock.now(),
      clockTolerance: 5,
    });
    if (payload.typ !== expected || typeof payload.sub !== "string" || typeof payload.tenant !== "string") return null;
    if (expected === "access" && !ROLE_VALUES.includes(payload.role as string)) return null;
    return payload as unknown as TokenClaims;
  } catch (err) {
    if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return null;
    throw err;
  }
}
