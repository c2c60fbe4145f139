import { signToken, TOKEN_TTL_SECONDS, verifyToken } from "../../auth/tokens.ts";
import { errors } from "../../errors.ts";
import { checkCaptcha } from "./captcha-service.ts";
import { nowMs, type AuthKit } from "./kit.ts";
import { maskEmail, maskPhone } from "./masks.ts";
import { otpText, verificationMail } from "./messages.ts";
import type { RegisterInput } from "./model.ts";
import { deliverOtp, issueOtp, OTP_TTL_SECONDS, verifyOtp } from "./otp.ts";
import { findUserByEmail, getUser, updateUser, type UserRow } from "../users/repo.ts";
import { createAccount, nextStep } from "./repo.ts";

const DAY = 86_400_000;

export interface RegistrationResult {
  requiresVerification: true;
  registrationToken: string;
  nextStep: "mobile" | "email" | "done";
  phoneMasked: string | null;
  emailMasked: string;
}

/** A unique-constraint violation on either engine (SQLite's SQLITE_CONSTRAINT_UNIQUE, PostgreSQL's 23505), however wrapped. */
function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined; e && typeof e === "object"; e = e.cause as typeof e) {
    if (e.code === "23505" || e.code === "SQLITE_CONSTRAINT_UNIQUE" || String(e.message ?? "").includes("UNIQUE")) return true;
  }
  return false;
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
  await checkCaptcha(kit, input.captchaId, input.captchaAnswer);
  const db = kit.deps.db;
  if (await findUserByEmail(db, input.email)) throw errors.conflict("An account with this email already exists");
  const passwordHash = await kit.hasher.hash(input.password);
  const now = nowMs(kit);
  const ids = { workspaceId: Bun.randomUUIDv7(), userId: Bun.randomUUIDv7() };
  try {
    await createAccount(db, {
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
    if (isUniqueViolation(err)) throw errors.conflict("An account with this email already exists");
    throw err;
  }
  kit.deps.log.info("account registered", { workspaceId: ids.workspaceId, userId: ids.userId });
  return resumeData(kit, (await getUser(db, ids.workspaceId, ids.userId))!);
}

/** The user a registration token names; 401 when the token is missing or invalid. */
export async function userOfRegistrationToken(kit: AuthKit, token: string | undefined): Promise<UserRow> {
  const claims = token ? await verifyToken(kit.keys, kit.deps.clock, token, "registration") : null;
  const user = claims ? await getUser(kit.deps.db, claims.tenant, claims.sub) : undefined;
  if (!user) throw errors.unauthorized("Missing or invalid registration token");
  return user;
}

/** POST mobile/send-otp. */
export async function sendMobileOtp(kit: AuthKit, user: UserRow): Promise<{ phoneMasked: string | null; expiresIn: number }> {
  if (!user.mobile) throw errors.conflict("This account has no mobile number");
  if (user.mobileVerifiedAt != null) throw errors.conflict("The mobile number is already verified");
  const { id, code } = await issueOtp(kit, { workspaceId: user.workspaceId, userId: user.id, purpose: "mobile_verify" }, user.mobile);
  const text = otpText(code, "mobile_verify", OTP_TTL_SECONDS / 60);
  await deliverOtp(kit, id, "mobile", () => kit.deps.notifier.sendMobile({ to: user.mobile!, text, kind: "otp" }));
  return { phoneMasked: maskPhone(user.mobile), expiresIn: OTP_TTL_SECONDS };
}

/** POST mobile/verify-otp. */
export async function verifyMobileOtp(kit: AuthKit, user: UserRow, code: string): Promise<{ nextStep: "email" | "done"; emailMasked: string }> {
  const mobileStep = (u: UserRow) => {
    if (!u.mobile) throw errors.conflict("This account has no mobile number");
    if (u.mobileVerifiedAt != null) throw errors.conflict("The mobile number is already verified");
  };
  mobileStep(user);
  const now = nowMs(kit);
  await verifyOtp(
    kit,
    { workspaceId: user.workspaceId, userId: user.id, purpose: "mobile_verify" },
    code,
    "otpCode",
    () => updateUser(kit.deps.db, user.workspaceId, user.id, { mobileVerifiedAt: now }, now),
    // again in the code's transaction: of parallel verifications the loser sees the step done (409)
    async () => mobileStep((await getUser(kit.deps.db, user.workspaceId, user.id)) ?? user),
  );
  return { nextStep: user.emailVerifiedAt == null ? "email" : "done", emailMasked: maskEmail(user.email) };
}

/** POST email/send-verification-code: only after the mobile step (409 before). */
export async function sendEmailCode(kit: AuthKit, user: UserRow): Promise<{ emailMasked: string; expiresIn: number }> {
  const step = nextStep(user);
  if (step === "mobile") throw errors.conflict("Verify the mobile number first");
  if (step === "done") throw errors.conflict("The email address is already verified");
  const { id, code } = await issueOtp(kit, { workspaceId: user.workspaceId, userId: user.id, purpose: "email_verify" }, user.email);
  const mail = verificationMail(user.email, user.name, code, OTP_TTL_SECONDS / 60);
  await deliverOtp(kit, id, "email", () => kit.deps.notifier.sendEmail(mail));
  return { emailMasked: maskEmail(user.email), expiresIn: OTP_TTL_SECONDS };
}

/** POST email/verify: the account is verified and can log in. */
export async function verifyEmail(kit: AuthKit, user: UserRow, code: string, field: "code" | "otpCode"): Promise<{ nextStep: "done"; verified: true }> {
  const emailStep = (u: UserRow) => {
    const step = nextStep(u);
    if (step === "mobile") throw errors.conflict("Verify the mobile number first");
    if (step === "done") throw errors.conflict("The email address is already verified");
  };
  emailStep(user);
  const now = nowMs(kit);
  await verifyOtp(
    kit,
    { workspaceId: user.workspaceId, userId: user.id, purpose: "email_verify" },
    code,
    field,
    () => updateUser(kit.deps.db, user.workspaceId, user.id, { emailVerifiedAt: now }, now),
    // again in the code's transaction: of parallel verifications the loser sees the step done (409)
    async () => emailStep((await getUser(kit.deps.db, user.workspaceId, user.id)) ?? user),
  );
  return { nextStep: "done", verified: true };
}
