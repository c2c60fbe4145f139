// jose (JWT signing and verification) is loaded by the first token this process signs or
// verifies, not by every start: its modules took ≈0.25 ms of a `serve` start that answers its
// first requests (/health, API keys) without a JWT, and the operator commands need none.
type Jose = typeof import("jose");

let lib: Jose | undefined;

/** jose, imported on the first call. */
export async function loadJose(): Promise<Jose> {
  return (lib ??= await import("jose"));
}

/** jose once loaded (by loadJose), without waiting; undefined before. */
export function loadedJose(): Jose | undefined {
  return lib;
}

/**
 * jose's `decodeJwt`, for a token this process has verified: verifying loaded jose (a verified
 * token's claims come from verifyToken, or from its cache of tokens verifyToken passed).
 */
export function decodeJwt(token: string): ReturnType<Jose["decodeJwt"]> {
  if (!lib) throw new Error("decodeJwt: jose is not loaded (decode a token after verifying it)");
  return lib.decodeJwt(token);
}
