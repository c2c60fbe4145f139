import { errors } from "../../errors.ts";
import { nowMs, type AuthKit } from "./kit.ts";
import { maskPhone } from "./masks.ts";
import { otpText } from "./messages.ts";
import { deliverOtp, issueOtp, OTP_SENDS_PER_HOUR, OTP_TTL_SECONDS, verifyOtp, type OtpTarget } from "./otp.ts";
import { getUser, updateUser } from "../users/repo.ts";
import { verifiedMobile } from "./repo.ts";

const target = (workspaceId: string, userId: string, boundTo?: string): OtpTarget => ({ workspaceId, userId, purpose: "change_mobile", boundTo });

/**
 * POST /api/auth/profile/mobile/send-otp: a code to the number a signed-in member wants as theirs.
 * Nothing changes on the account yet: the number in force (and the one login codes go to) stays
 * until the new one is verified. Numbers are not unique: one verified by another user may be added.
 */
export async function sendChangeMobileOtp(
  kit: AuthKit,
  workspaceId: string,
  userId: string,
  mobile: string,
  password: string | undefined,
): Promise<{ phoneMasked: string | null; expiresIn: number }> {
  const user = await getUser(kit.deps.db, workspaceId, userId);
  if (!user) throw errors.unauthorized();
  const current = verifiedMobile(user);
  if (current === mobile) throw errors.conflict("This number is already your verified mobile number");
  // replacing a verified number replaces the second factor: a stolen access token alone must not do it
  if (current) {
    if (!password) throw errors.validation({ password: "is required to replace your verified mobile number" });
    if (!(await kit.hasher.verify(password, user.passwordHash))) throw errors.validation({ password: "is incorrect" }, "Wrong password");
  }
  // the per-destination limits (docs/authentication.md) alone would let one account spray codes at many numbers
  const { id, code } = await issueOtp(kit, target(workspaceId, userId), mobile, { perTargetPerHour: OTP_SENDS_PER_HOUR });
  const text = otpText(code, "change_mobile", OTP_TTL_SECONDS / 60);
  await deliverOtp(kit, id, "mobile", () => kit.deps.notifier.sendMobile({ to: mobile, text, kind: "otp" }));
  return { phoneMasked: maskPhone(mobile), expiresIn: OTP_TTL_SECONDS };
}

/** POST /api/auth/profile/mobile/verify: a right code for this number makes it the member's verified mobile. */
export async function verifyChangeMobile(
  kit: AuthKit,
  workspaceId: string,
  userId: string,
  mobile: string,
  code: string,
): Promise<{ phoneMasked: string | null; mobileVerified: true }> {
  if (!(await getUser(kit.deps.db, workspaceId, userId))) throw errors.unauthorized();
  const now = nowMs(kit);
  await verifyOtp(kit, target(workspaceId, userId, mobile), code, "otpCode", () =>
    updateUser(kit.deps.db, workspaceId, userId, { mobile, mobileVerifiedAt: now }, now),
  );
  kit.deps.log.info("mobile number changed", { workspaceId, userId });
  return { phoneMasked: maskPhone(mobile), mobileVerified: true };
}
