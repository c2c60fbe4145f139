import { describe, expect, test } from "bun:test";
import { ACCESS_TTL_SECONDS, signToken, type TokenKeys } from "../../src/auth/tokens.ts";
import { ManualClock } from "../../src/clock.ts";
import { VerifiedTokens } from "../../src/http/verified-tokens.ts";

const keys: TokenKeys = { secret: new TextEncoder().encode("k".repeat(48)), issuer: "parley", audience: "parley-dashboard" };
const claims = { sub: "u1", tenant: "w1", role: "owner" as const, typ: "access" as const };

describe("verified access tokens (the guard's cache)", () => {
  test("a cached token is refused once it expires, exactly when a fresh verification refuses it", async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const cache = new VerifiedTokens(keys, clock);
    const token = await signToken(keys, clock, claims, ACCESS_TTL_SECONDS);
    expect((await cache.verify(token))?.sub).toBe("u1");
    clock.advance((ACCESS_TTL_SECONDS + 4) * 1000); // within the 5 s tolerance
    expect((await cache.verify(token))?.sub).toBe("u1");
    clock.advance(1000); // exp <= now - 5: refused
    expect(await cache.verify(token)).toBeNull();
    expect(await cache.verify(token)).toBeNull();
  });

  test("a token issued in the future is refused until the clock reaches it, also from the cache", async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const future = await signToken(keys, new ManualClock(Date.UTC(2026, 5, 1, 12, 1)), claims, ACCESS_TTL_SECONDS);
    const cache = new VerifiedTokens(keys, clock);
    expect(await cache.verify(future)).toBeNull();
    clock.advance(60_000);
    expect((await cache.verify(future))?.sub).toBe("u1");
    clock.set(Date.UTC(2026, 5, 1, 12)); // a clock set back: the cached entry is checked again
    expect(await cache.verify(future)).toBeNull();
  });

  test("a token with a tampered signature is never accepted, cached or not", async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const cache = new VerifiedTokens(keys, clock);
    const token = await signToken(keys, clock, claims, ACCESS_TTL_SECONDS);
    await cache.verify(token);
    const tampered = token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");
    expect(await cache.verify(tampered)).toBeNull();
    const other = new VerifiedTokens({ ...keys, secret: new TextEncoder().encode("x".repeat(48)) }, clock);
    expect(await other.verify(token)).toBeNull();
  });
});
