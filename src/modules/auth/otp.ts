import { and, desc, eq, gt } from "drizzle-orm";
import { hmacHex, sameHex } from "../../crypto/hash.ts";
import { randomDigits } from "../../crypto/random.ts";
import { AppError, errors } from "../../errors.ts";
import { NotifyError } from "../../notify/notifier.ts";
import { nowMs, type AuthKit } from "./kit.ts";
import { otpCodes, type OtpPurpose } from "./table.ts";

export const OTP_TTL_SECONDS = 10 * 60;
export const OTP_MAX_ATTEMPTS = 5;
export const OTP_SEND_GAP_SECONDS = 60;
export const OTP_SENDS_PER_HOUR = 5;
const HOUR = 3_600_000;

export interface OtpTarget {
  workspaceId: string;
  userId: string;
  purpose: OtpPurpose;
  /** login codes belong to one challenge */
  challengeId?: string;
  /**
   * Verification only: the code must have gone to this destination (a mobile change binds the
   * code to the new number, so a code sent to one number cannot confirm another).
   */
  boundTo?: string;
}

export interface IssueOptions {
  /** a cap per target (user and purpose) an hour, on top of the per-destination limits */
  perTargetPerHour?: number;
}

function codeHash(kit: AuthKit, id: string, code: string): string {
  return hmacHex(kit.deps.secrets.jwtSecret, `otp:${id}:${code}`);
}

const sameTarget = (t: OtpTarget) =>
  and(
    eq(otpCodes.workspaceId, t.workspaceId),
    eq(otpCodes.userId, t.userId),
    eq(otpCodes.purpose, t.purpose),
    t.challengeId ? eq(otpCodes.challengeId, t.challengeId) : undefined, // and() leaves undefined out
  );

/**
 * Creates a code for a destination (docs/authentication.md): at least 60 s after the last one and at most 5 an
 * hour per destination (429 with Retry-After), counted in rows so restarts change nothing.
 * Earlier live codes of the same target stop working, whatever number or address they went to.
 */
export async function issueOtp(kit: AuthKit, target: OtpTarget, destination: string, opts: IssueOptions = {}): Promise<{ id: string; code: string }> {
  const db = kit.deps.db;
  const now = nowMs(kit);
  // the limits are checked and the code inserted in one transaction: parallel sends cannot both pass
  return db.tx(async () => {
    // counted per destination across users and workspaces: one phone or inbox, one budget
    const recent = await db
      .select({ createdAt: otpCodes.createdAt })
      .from(otpCodes)
      .where(and(eq(otpCodes.destination, destination), gt(otpCodes.createdAt, now - HOUR)))
      .orderBy(desc(otpCodes.createdAt))
      .all();
    const last = recent[0]?.createdAt;
    if (last !== undefined && now - last < OTP_SEND_GAP_SECONDS * 1000) {
      throw errors.rateLimited((last + OTP_SEND_GAP_SECONDS * 1000 - now) / 1000, `Wait ${OTP_SEND_GAP_SECONDS} seconds between codes`);
    }
    if (recent.length >= OTP_SENDS_PER_HOUR) {
      const oldest = recent[OTP_SENDS_PER_HOUR - 1]!.createdAt;
      throw errors.rateLimited((oldest + HOUR - now) / 1000, `At most ${OTP_SENDS_PER_HOUR} codes an hour`);
    }
    if (opts.perTargetPerHour !== undefined) {
      const mine = await db
        .select({ createdAt: otpCodes.createdAt })
        .from(otpCodes)
        .where(and(sameTarget(target), gt(otpCodes.createdAt, now - HOUR)))
        .orderBy(desc(otpCodes.createdAt))
        .all();
      if (mine.length >= opts.perTargetPerHour) {
        const oldest = mine[opts.perTargetPerHour - 1]!.createdAt;
        throw errors.rateLimited((oldest + HOUR - now) / 1000, `At most ${opts.perTargetPerHour} codes an hour`);
      }
    }
    await db
      .update(otpCodes)
      .set({ status: "replaced" })
      .where(and(sameTarget(target), eq(otpCodes.status, "live")))
      .run();
    const id = Bun.randomUUIDv7();
    const code = randomDigits(6);
    await db
      .insert(otpCodes)
      .values({
        id,
        workspaceId: target.workspaceId,
        userId: target.userId,
        purpose: target.purpose,
        challengeId: target.challengeId ?? null,
        destination,
        codeHash: codeHash(kit, id, code),
        expiresAt: now + OTP_TTL_SECONDS * 1000,
        createdAt: now,
      })
      .run();
    return { id, code };
  });
}

/**
 * Delivers a freshly issued code. When the channel fails the code is dropped (it reached no
 * one, so it must not hold the cooldown) and the caller gets 502 (mobile) or 500 (mail).
 */
export async function deliverOtp(kit: AuthKit, otpId: string, medium: "mobile" | "email", send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (err) {
    await kit.deps.db.delete(otpCodes).where(eq(otpCodes.id, otpId)).run();
    if (!(err instanceof NotifyError)) throw err;
    if (medium === "mobile") throw errors.chatappUnavailable("Could not deliver the code to your mobile; try again later");
    throw new AppError("INTERNAL_ERROR", "Could not send the email; try again later", { cause: err });
  }
}

type Outcome = "ok" | "none" | "expired" | "dead" | "wrong";

/**
 * Checks a code against the target's live code (docs/authentication.md): single use, 10 minutes, dead after 5
 * wrong tries. Throws 400 VALIDATION_ERROR on `field` otherwise. `onSuccess` runs in the same
 * transaction as the consumption (e.g. marking the mobile verified); `precheck` runs first in
 * it (and may throw): a state the caller read before, checked again where parallel
 * verifications are serialised.
 */
export async function verifyOtp(
  kit: AuthKit,
  target: OtpTarget,
  code: string,
  field: string,
  onSuccess: () => Promise<void> | void = () => {},
  precheck: () => Promise<void> | void = () => {},
): Promise<void> {
  const now = nowMs(kit);
  const db = kit.deps.db;
  // the transaction returns the outcome: a wrong try must commit its counted attempt
  const outcome = await db.tx(async (): Promise<Outcome> => {
    await precheck();
    const row = await db
      .select()
      .from(otpCodes)
      .where(and(sameTarget(target), eq(otpCodes.status, "live"), target.boundTo !== undefined ? eq(otpCodes.destination, target.boundTo) : undefined))
      .orderBy(desc(otpCodes.createdAt))
      .get();
    if (!row) return "none";
    if (row.expiresAt <= now) return "expired";
    if (row.attempts >= OTP_MAX_ATTEMPTS) return "dead";
    if (!sameHex(row.codeHash, codeHash(kit, row.id, code))) {
      const attempts = row.attempts + 1;
      await db
        .update(otpCodes)
        .set({ attempts, status: attempts >= OTP_MAX_ATTEMPTS ? "dead" : "live" })
        .where(eq(otpCodes.id, row.id))
        .run();
      return attempts >= OTP_MAX_ATTEMPTS ? "dead" : "wrong";
    }
    const used = await db
      .update(otpCodes)
      .set({ status: "used", usedAt: now })
      .where(and(eq(otpCodes.id, row.id), eq(otpCodes.status, "live")))
      .returning({ id: otpCodes.id })
      .all();
    if (used.length !== 1) return "none";
    await onSuccess();
    return "ok";
  });
  const messages: Record<Exclude<Outcome, "ok">, string> = {
    none: "no valid code; request a new one",
    expired: "has expired; request a new code",
    dead: "too many wrong tries; request a new code",
    wrong: "is incorrect",
  };
  if (outcome !== "ok") throw errors.validation({ [field]: messages[outcome] }, "Invalid code");
}
