import type { PasswordHasher } from "../../auth/passwords.ts";
import { tokenKeys, type TokenKeys } from "../../auth/tokens.ts";
import type { AppDeps } from "../../deps.ts";
import { createOidcVerifier, type OidcVerifier } from "./oidc.ts";
import { limiterFor, type Limiter } from "../../limits/limiter.ts";
import { publicBaseUrl } from "../../http/public-url.ts";

/** What the auth services share for one app: deps plus the long-lived helpers built once. */
export interface AuthKit {
  deps: AppDeps;
  keys: TokenKeys;
  hasher: PasswordHasher;
  oidc: OidcVerifier | null;
  /** per IP and route (docs/authentication.md: 10 a minute) */
  routeLimiter: Limiter;
  /** failed logins per account and IP (docs/authentication.md: 5 per 15 minutes) */
  loginFailures: Limiter;
  /** base of links in mail */
  publicUrl: string;
  /**
   * The listening server (null until it listens, and under `app.handle`), for the client's IP:
   * taking `server` from a handler's context makes Elysia define it on every request's context.
   */
  server: { current: { requestIP(r: Request): { address: string } | null } | null };
}

/** Builds the kit of an app. */
export function createAuthKit(deps: AppDeps): AuthKit {
  const { config, clock } = deps;
  return {
    deps,
    keys: tokenKeys(config, deps.secrets.jwtSecret),
    hasher: deps.hasher,
    oidc: createOidcVerifier(config, clock, deps.log.child({ component: "oidc" })),
    routeLimiter: limiterFor(deps.db, clock, "authRoute", config.authRateLimitPerMinute, 60_000),
    loginFailures: limiterFor(deps.db, clock, "loginFailures", config.loginFailureLimit, config.loginFailureWindowMinutes * 60_000),
    publicUrl: publicBaseUrl(config),
    server: { current: null },
  };
}

/** Now in unix ms from the injected clock. */
export const nowMs = (kit: AuthKit) => kit.deps.clock.now().getTime();
