import { and, desc, eq, gt, isNull } from "drizzle-orm";
import { sha256Hex } from "../../crypto/hash.ts";
import { randomToken } from "../../crypto/random.ts";
import { errors } from "../../errors.ts";
import { nowMs, type AuthKit } from "./kit.ts";
import { resetMail } from "./messages.ts";
import { revokeAllForUser } from "./refresh.ts";
import { findUserByEmail, getUser, updateUser } from "../users/repo.ts";
import { passwordResets } from "./table.ts";

export const RESET_TTL_MS = 30 * 60_000;
/** reset mails per account: one a minute, five an hour (beyond: silently not sent) */
const RESET_GAP_MS = 60_000;
const RESETS_PER_HOUR = 5;

export const FORGOT_MESSAGE = "If an account exists for this email, a reset link has been sent";

/**
 * POST forgot-password (docs/authentication.md): always the same answer. The mail leaves after the response, so a
 * slow mail server cannot tell known addresses from unknown ones by timing.
 */
export async function forgotPassword(kit: AuthKit, email: string): Promise<void> {
  const token = randomToken(32);
  const tokenHash = sha256Hex(token);
  const db = kit.deps.db;
  const user = await findUserByEmail(db, email);
  if (!user) return;
  const now = nowMs(kit);
  // the limit is checked and the reset recorded in one transaction: parallel requests cannot both pass
  const allowed = await db.tx(async () => {
    const recent = await db
      .select({ createdAt: passwordResets.createdAt })
      .from(passwordResets)
      .where(and(eq(passwordResets.userId, user.id), gt(passwordResets.createdAt, now - 3_600_000)))
      .orderBy(desc(passwordResets.createdAt))
      .all();
    if (recent.length >= RESETS_PER_HOUR || (recent[0] && now - recent[0].createdAt < RESET_GAP_MS)) return false;
    await db
      .insert(passwordResets)
      .values({ id: Bun.randomUUIDv7(), workspaceId: user.workspaceId, userId: user.id, tokenHash, expiresAt: now + RESET_TTL_MS, createdAt: now })
      .run();
    return true;
  });
  if (!allowed) {
    kit.deps.log.info("password reset mail not sent: too many requests for this account", { userId: user.id });
    return;
  }
  const mail = resetMail(kit.publicUrl, user.email, user.name, token, RESET_TTL_MS / 60_000);
  setTimeout(() => {
    kit.deps.notifier.sendEmail(mail).catch((err) => kit.deps.log.warn("password reset mail failed", { userId: user.id, err }));
  }, 0);
}

/** POST reset-password: the emailed token, once, within 30 minutes; refresh tokens are revoked. */
export async function resetPassword(kit: AuthKit, token: string, password: string): Promise<void> {
  const db = kit.deps.db;
  const tokenHash = sha256Hex(token);
  const invalid = () => errors.validation({ token: "is invalid, expired or already used; request a new reset link" }, "Invalid reset token");
  const live = () =>
    db
      .select()
      .from(passwordResets)
      .where(and(eq(passwordResets.tokenHash, tokenHash), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, nowMs(kit))))
      .get();
  if (!(await live())) throw invalid();
  const passwordHash = await kit.hasher.hash(password);
  await db.tx(async () => {
    // checked again: a parallel reset with the same token may have won while we hashed
    const row = await live();
    if (!row) throw invalid();
    const now = nowMs(kit);
    await db
      .update(passwordResets)
      .set({ usedAt: now })
      .where(and(eq(passwordResets.userId, row.userId), isNull(passwordResets.usedAt)))
      .run();
    await updateUser(db, row.workspaceId, row.userId, { passwordHash }, now);
    await revokeAllForUser(kit, row.workspaceId, row.userId, "password_reset");
  });
}

/** POST change-password: needs the current password (400 `errors.currentPassword`); refresh tokens are revoked. */
export async function changePassword(kit: AuthKit, workspaceId: string, userId: string, current: string, next: string): Promise<void> {
  const db = kit.deps.db;
  const user = await getUser(db, workspaceId, userId);
  if (!user) throw errors.unauthorized();
  if (!(await kit.hasher.verify(current, user.passwordHash))) throw errors.validation({ currentPassword: "is incorrect" }, "Wrong current password");
  const passwordHash = await kit.hasher.hash(next);
  await db.tx(async () => {
    const now = nowMs(kit);
    await updateUser(db, workspaceId, userId, { passwordHash }, now);
    await revokeAllForUser(kit, workspaceId, userId, "password_change");
  });
}

/** PUT /api/auth/2fa: turns the login second factor on or off, confirmed by the password. */
export async function setTwoFactor(kit: AuthKit, workspaceId: string, userId: string, enabled: boolean, password: string): Promise<{ twoFactorEnabled: boolean }> {
  const db = kit.deps.db;
  const user = await getUser(db, workspaceId, userId);
  if (!user) throw errors.unauthorized();
  if (!(await kit.hasher.verify(password, user.passwordHash))) throw errors.validation({ password: "is incorrect" }, "Wrong password");
  // codes go only to a verified mobile: without one (and without OIDC) the member would be locked out
  if (enabled && !(user.mobile && user.mobileVerifiedAt) && !kit.oidc) {
    throw errors.conflict("A verified mobile number (or an identity provider) is needed before turning on the second factor");
  }
  await updateUser(db, workspaceId, userId, { twoFactorEnabled: enabled }, nowMs(kit));
  return { twoFactorEnabled: enabled };
}
