import { loadJose } from "../../auth/jose.ts";
import type { Clock } from "../../clock.ts";
import type { Config } from "../../config.ts";
import type { Logger } from "../../log.ts";

/** Verifies OpenID Connect ID tokens of the operator's identity provider (second factor, docs/authentication.md). */
export interface OidcVerifier {
  /** The verified, lower-cased email of a valid ID token, or null. */
  verifiedEmail(idToken: string): Promise<string | null>;
}

const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

/** The verifier of the configured issuer, audience and JWKS; null when any of them is missing. */
export function createOidcVerifier(config: Config, clock: Clock, log: Logger): OidcVerifier | null {
  const { oidcIssuer: issuer, oidcAudience: audience, oidcJwksUrl } = config;
  if (!issuer || !audience || !oidcJwksUrl) return null;
  const url = new URL(oidcJwksUrl);
  // keys are fetched on first use and cached; an unknown kid triggers a (rate-limited) refetch
  let jwks: ReturnType<typeof import("jose").createRemoteJWKSet> | undefined;
  return {
    async verifiedEmail(idToken) {
      try {
        const { createRemoteJWKSet, jwtVerify } = await loadJose();
        jwks ??= createRemoteJWKSet(url, { timeoutDuration: 5000 });
        const { payload } = await jwtVerify(idToken, jwks, {
          issuer,
          audience,
          // only the provider's public keys: an HMAC token signed with a guessed secret never fits
          algorithms: ASYMMETRIC,
          requiredClaims: ["exp", "iat", "sub"],
          currentDate: clock.now(),
          clockTolerance: 30,
        });
        const verified = payload.email_verified === true || payload.email_verified === "true";
        if (!verified || typeof payload.email !== "string") return null;
        return payload.email.trim().toLowerCase();
      } catch (err) {
        log.info("ID token refused", { reason: err instanceof Error ? err.message : String(err) });
        return null;
      }
    },
  };
}
