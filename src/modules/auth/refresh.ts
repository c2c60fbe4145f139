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
export function startFamily(kit: AuthKit, workspaceId: string, userId: string): Promise<string> {
  const now = nowMs(kit);
  return insertToken(kit, { workspaceId, userId, familyId: Bun.randomUUIDv7(), expiresAt: now + REFRESH_TTL_MS }, now);
}

async function insertToken(kit: AuthKit, f: { workspaceId: string; userId: string; familyId: string; expiresAt: number }, now: number): Promise<string> {
  const token = randomToken(32);
  await kit.deps.db
    .insert(refreshTokens)
    .values({ id: Bun.randomUUIDv7(), ...f, tokenHash: sha256Hex(token), createdAt: now })
    .run();
  return token;
}

/**
 * Rotates a refresh token: the presented one is spent and a new one of the same family is
 * returned. A spent token presented again is reuse (theft, or a client racing itself): the
 * whole family is revoked and the answer is 401. All in one transaction, so of parallel
 * refreshes of one token exactly one wins.
 */
export async function rotate(kit: AuthKit, token: string): Promise<{ workspaceId: string; userId: string; token: string }> {
  const now = nowMs(kit);
  const db = kit.deps.db;
  const result = await db.tx(async () => {
    const row = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, sha256Hex(token))).get();
    if (!row || row.revokedAt !== null || row.expiresAt <= now) return null;
    if (row.rotatedAt !== null) {
      await db
        .update(refreshTokens)
        .set({ revokedAt: now, revokedReason: "reuse" })
        .where(and(eq(refreshTokens.familyId, row.familyId), isNull(refreshTokens.revokedAt)))
        .run();
      return "reuse" as const;
    }
    await db.update(refreshTokens).set({ rotatedAt: now }).where(eq(refreshTokens.id, row.id)).run();
    const next = await insertToken(kit, { workspaceId: row.workspaceId, userId: row.userId, familyId: row.familyId, expiresAt: row.expiresAt }, now);
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
export async function revokeFamilyOf(kit: AuthKit, token: string, reason: RevokeReason): Promise<boolean> {
  const db = kit.deps.db;
  const now = nowMs(kit);
  const row = await db.select({ familyId: refreshTokens.familyId }).from(refreshTokens).where(eq(refreshTokens.tokenHash, sha256Hex(token))).get();
  if (!row) return false;
  await db
    .update(refreshTokens)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(refreshTokens.familyId, row.familyId), isNull(refreshTokens.revokedAt)))
    .run();
  return true;
}

/** Revokes every refresh token of a user (password change and reset). */
export async function revokeAllForUser(kit: AuthKit, workspaceId: string, userId: string, reason: RevokeReason): Promise<void> {
  await kit.deps.db
    .update(refreshTokens)
    .set({ revokedAt: nowMs(kit), revokedReason: reason })
    .where(and(eq(refreshTokens.workspaceId, workspaceId), eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
    .run();
}
