import { signToken, TOKEN_TTL_SECONDS, verifyToken } from "../../auth/tokens.ts";
import { errors } from "../../errors.ts";
import { checkCaptcha } from "./captcha-service.ts";
import { nowMs, type AuthKit } from "./kit.ts";
import { maskEmail, maskPhone } from "./masks.ts";
import { otpText, verificationMail } from "./messages.ts";
import type { RegisterInput } from "./model.ts";
import { deliverOtp, issueOtp, OTP_TTL_SECONDS, verifyOtp } from "./otp.ts";
import { createAccount, findUserByEmail, getUser, nextStep, updateUser, type UserRow } from "./repo.ts";

const DAY = 86_400_000;

export interface RegistrationResult {
  requiresVerification: true;
  registrationToken: string;
  nextStep: "mobile" | "email" | "done";
  phoneMasked: string | null;
  emailMasked: string;
}

/** A registration token (30 minutes): carries a user through the verification routes, never a login. */
export function registrationToken(kit: AuthKit, user: UserRow): Promise<string> {
  return signToken(kit.keys, kit.deps.clock, { sub: user.id, tenant: user.workspaceId, typ: "registration" }, TOKEN_TTL_SECONDS.registration);
}

/** The resume data of an unverified account (register answer, and login's 403). */
export async function resumeData(kit: AuthKit, user: UserRow): Promise<RegistrationResult> {
  return {
    requiresVerification: true,
    registrationToken: await registrationToken(kit, user),
    nextStep: nextStep(user),
    phoneMasked: maskPhone(user.mobile),
    emailMasked: maskEmail(user.email),
  };
}

/** POST /api/auth/register: the workspace (trial on Growth) and its owner (docs/authentication.md). */
export async function register(kit: AuthKit, input: RegisterInput): Promise<RegistrationResult> {
  checkCaptcha(kit, input.captchaId, input.captchaAnswer);
  const db = kit.deps.db;
  if (findUserByEmail(db, input.email)) throw errors.conflict("An account with this email already exists");
  const passwordHash = await kit.hasher.hash(input.password);
  const now = nowMs(kit);
  const ids = { workspaceId: Bun.randomUUIDv7(), userId: Bun.randomUUIDv7() };
  try {
    createAccount(db, {
      ...ids,
      tenantName: input.tenantName,
      name: input.name,
      email: input.email,
      mobile: input.mobile,
      passwordHash,
      trialEndsAt: now + kit.deps.config.trialDays * DAY,
      now,
    });
  } catch (err) {
    // two registrations of one email raced past the check above
    if (String((err as Error)?.message ?? err).includes("UNIQUE")) throw errors.conflict("An account with this email already exists");
    throw err;
  }
  kit.deps.log.info("account registered", { workspaceId: ids.workspaceId, userId: ids.userId });
  return resumeData(kit, getUser(db, ids.workspaceId, ids.userId)!);
}

/** The user a registration token names; 401 when the token is missing or invalid. */
export async function userOfRegistrationToken(kit: AuthKit, token: string | undefined): Promise<UserRow> {
  const claims = token ? await verifyToken(kit.keys, kit.deps.clock, token, "registration") : null;
  const user = claims ? getUser(kit.deps.db, claims.tenant, claims.sub) : undefined;
  if (!user) throw errors.unauthorized("Missing or invalid registration token");
  return user;
}

/** POST mobile/send-otp. */
export async function sendMobileOtp(kit: AuthKit, user: UserRow): Promise<{ phoneMasked: string | null; expiresIn: number }> {
  if (!user.mobile) throw errors.conflict("This account has no mobile number");
  if (user.mobileVerifiedAt != null) throw errors.conflict("The mobile number is already verified");
  const { id, code } = issueOtp(kit, { workspaceId: user.workspaceId, userId: user.id, purpose: "mobile_verify" }, user.mobile);
  const text = otpText(code, "mobile_verify", OTP_TTL_SECONDS / 60);
  await deliverOtp(kit, id, "mobile", () => kit.deps.notifier.sendMobile({ to: user.mobile!, text, kind: "otp" }));
  return { phoneMasked: maskPhone(user.mobile), expiresIn: OTP_TTL_SECONDS };
}

/** POST mobile/verify-otp. */
export function verifyMobileOtp(kit: AuthKit, user: UserRow, code: string): { nextStep: "email" | "done"; emailMasked: string } {
  if (!user.mobile) throw errors.conflict("This account has no mobile number");
  if (user.mobileVerifiedAt != null) throw errors.conflict("The mobile number is already verified");
  const now = nowMs(kit);
  verifyOtp(kit, { workspaceId: user.workspaceId, userId: user.id, purpose: "mobile_verify" }, code, "otpCode", () =>
    updateUser(kit.deps.db, user.workspaceId, user.id, { mobileVerifiedAt: now }, now),
  );
  return { nextStep: user.emailVerifiedAt == null ? "email" : "done", emailMasked: maskEmail(user.email) };
}

/** POST email/send-verification-code: only after the mobile step (409 before). */
export async function sendEmailCode(kit: AuthKit, user: UserRow): Promise<{ emailMasked: string; expiresIn: number }> {
  const step = nextStep(user);
  if (step === "mobile") throw errors.conflict("Verify the mobile number first");
  if (step === "done") throw errors.conflict("The email address is already verified");
  const { id, code } = issueOtp(kit, { workspaceId: user.workspaceId, userId: user.id, purpose: "email_verify" }, user.email);
  const mail = verificationMail(user.email, user.name, code, OTP_TTL_SECONDS / 60);
  await deliverOtp(kit, id, "email", () => kit.deps.notifier.sendEmail(mail));
  return { emailMasked: maskEmail(user.email), expiresIn: OTP_TTL_SECONDS };
}

/** POST email/verify: the account is verified and can log in. */
export function verifyEmail(kit: AuthKit, user: UserRow, code: string, field: "code" | "otpCode"): { nextStep: "done"; verified: true } {
  const step = nextStep(user);
  if (step === "mobile") throw errors.conflict("Verify the mobile number first");
  if (step === "done") throw errors.conflict("The email address is already verified");
  const now = nowMs(kit);
  verifyOtp(kit, { workspaceId: user.workspaceId, userId: user.id, purpose: "email_verify" }, code, field, () =>
    updateUser(kit.deps.db, user.workspaceId, user.id, { emailVerifiedAt: now }, now),
  );
  return { nextStep: "done", verified: true };
}
