import { Elysia } from "elysia";
import type { AppDeps } from "../deps.ts";
import { verifyEarly } from "./auth-guard.ts";
import { MEDIA_ROUTES } from "./core-plugin.ts";

/**
 * The media routes take bodies up to `mediaBodyLimit` (110 MB), and a body is read and parsed
 * before the route's guard runs (Elysia: parse, then transform). So on those routes the
 * credential is checked first, in `onRequest`: a caller whose JWT or API key does not
 * authenticate gets the 401 the guard would give, before a byte of the body is read (four
 * anonymous 100 MB sends held 1.4 GB), also on a media path no route serves. The route's own
 * guard takes what was verified here (not read twice), decides which credential kind and
 * permission it needs, and counts the request.
 */
export function mediaCredentialGate(deps: AppDeps) {
  // not an async function: every other request passes without a promise made for it (Elysia
  // still awaits this hook's result, a promise only on a media POST)
  return new Elysia({ name: "parley-media-gate" }).onRequest(({ request }) => {
    if (request.method === "POST" && MEDIA_ROUTES.test(new URL(request.url).pathname)) return verifyEarly(deps, request);
  });
}
