import { TOKEN_TTL_SECONDS, verifyToken, type TokenClaims, type TokenKeys } from "../auth/tokens.ts";
import type { Clock } from "../clock.ts";

/** verifyToken's clock tolerance (seconds): the time checks below repeat its rules exactly. */
const TOLERANCE_S = 5;
const MAX_ENTRIES = 10_000;

interface Entry {
  claims: TokenClaims;
  iat: number;
  exp: number;
}

/**
 * Access tokens already verified, by their exact text (signature included): a dashboard
 * sends the same token for 15 minutes, and checking its HMAC on every request (WebCrypto,
 * asynchronous) cost more than the request's own work. A hit repeats only the checks that
 * depend on the time (exp, iat not in the future, iat not older than the token type's
 * lifetime, with the same tolerance), so it answers exactly as a fresh verification would.
 * The member's role is still read from the database by the guard on every request.
 */
export class VerifiedTokens {
  private entries = new Map<string, Entry>();

  constructor(
    private keys: TokenKeys,
    private clock: Clock,
  ) {}

  /** The claims of a token verified before and still valid now, without waiting; undefined when it must be verified. */
  cached(token: string): TokenClaims | undefined {
    const hit = this.entries.get(token);
    if (!hit) return undefined;
    if (fresh(hit, Math.floor(this.clock.nowMs() / 1000))) return hit.claims;
    this.entries.delete(token);
    return undefined;
  }

  /** The claims of a valid access token, or null. */
  async verify(token: string): Promise<TokenClaims | null> {
    const hit = this.cached(token);
    if (hit) return hit;
    const claims = await verifyToken(this.keys, this.clock, token, "access");
    if (!claims || typeof claims.iat !== "number" || typeof claims.exp !== "number" || claims.nbf !== undefined) return claims;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!); // oldest first
    this.entries.set(token, { claims, iat: claims.iat, exp: claims.exp });
    return claims;
  }
}

/** jose's rules for exp, iat in the future and maxTokenAge, at `now` (unix seconds). */
function fresh(e: Entry, now: number): boolean {
  const age = now - e.iat;
  return e.exp > now - TOLERANCE_S && age >= -TOLERANCE_S && age - TOLERANCE_S <= TOKEN_TTL_SECONDS.access;
}
