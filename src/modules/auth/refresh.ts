import { and, eq, isNull } from "drizzle-orm";
import { sha256Hex } from "../../crypto/hash.ts";
import { randomToken } from "../../crypto/random.ts";
import { errors } from "../../errors.ts";
import { nowMs, type AuthKit } from "./kit.ts";
import { refreshTokens } from "./table.ts";

/** A login's refresh family lives 30 days however often it rotates (docs/authentication.md). */
export const REFRESH_TTL_MS = 30 * 86_400_000;

export type RevokeReason = "logout" | "reuse" | "password_change" | "password_reset";

/** Starts a refresh family for a fresh login; returns the opaque token (256 random bits). */
export function startFamily(kit: AuthKit, workspaceId: string, userId: string): string {
  const now = nowMs(kit);
  return insertToken(kit, { workspaceId, userId, familyId: Bun.randomUUIDv7(), expiresAt: now + REFRESH_TTL_MS }, now);
}

function insertToken(kit: AuthKit, f: { workspaceId: string; userId: string; familyId: string; expiresAt: number }, now: number): string {
  const token = randomToken(32);
  kit.deps.db
    .insert(refreshTokens)
    .values({ id: Bun.randomUUIDv7(), ...f, tokenHash: sha256Hex(token), createdAt: now })
    .run();
  return token;
}

/**
 * Rotates a refresh token: the presented one is spent and a new one of the same family is
 * returned. A spent token presented again is reuse (theft, or a client racing itself): the
 * whole family is revoked and the answer is 401. All in one synchronous transaction, so of
 * parallel refreshes of one token exactly one wins.
 */
export function rotate(kit: AuthKit, token: string): { workspaceId: string; userId: string; token: string } {
  const now = nowMs(kit);
  const db = kit.deps.db;
  const result = db.transaction((tx) => {
    const row = tx.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, sha256Hex(token))).get();
    if (!row || row.revokedAt !== null || row.expiresAt <= now) return null;
    if (row.rotatedAt !== null) {
      tx.update(refreshTokens)
        .set({ revokedAt: now, revokedReason: "reuse" })
        .where(and(eq(refreshTokens.familyId, row.familyId), isNull(refreshTokens.revokedAt)))
        .run();
      return "reuse" as const;
    }
    tx.update(refreshTokens).set({ rotatedAt: now }).where(eq(refreshTokens.id, row.id)).run();
    const next = insertToken(kit, { workspaceId: row.workspaceId, userId: row.userId, familyId: row.familyId, expiresAt: row.expiresAt }, now);
    return { workspaceId: row.workspaceId, userId: row.userId, token: next };
  });
  if (result === "reuse") {
    kit.deps.log.warn("refresh token reused: family revoked", {});
    throw errors.unauthorized("Refresh token was already used; sign in again");
  }
  if (!result) throw errors.unauthorized("Invalid or expired refresh token");
  return result;
}

/** Revokes the family of a token (logout). Unknown tokens change nothing. */
export function revokeFamilyOf(kit: AuthKit, token: string, reason: RevokeReason): boolean {
  const db = kit.deps.db;
  const now = nowMs(kit);
  const row = db.select({ familyId: refreshTokens.familyId }).from(refreshTokens).where(eq(refreshTokens.tokenHash, sha256Hex(token))).get();
  if (!row) return false;
  db.update(refreshTokens)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(refreshTokens.familyId, row.familyId), isNull(refreshTokens.revokedAt)))
    .run();
  return true;
}

/** Revokes every refresh token of a user (password change and reset). */
export function revokeAllForUser(kit: AuthKit, workspaceId: string, userId: string, reason: RevokeReason): void {
  kit.deps.db
    .update(refreshTokens)
    .set({ revokedAt: nowMs(kit), revokedReason: reason })
    .where(and(eq(refreshTokens.workspaceId, workspaceId), eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
    .run();
}
