import { and, eq, gt, isNull } from "drizzle-orm";
import { ACCESS_TTL_SECONDS, ACCESS_TTL_TEXT, signToken, TOKEN_TTL_SECONDS, verifyToken } from "../../auth/tokens.ts";
import { AppError, errors } from "../../errors.ts";
import { checkCaptcha } from "./captcha-service.ts";
import { nowMs, type AuthKit } from "./kit.ts";
import { maskPhone } from "./masks.ts";
import { otpText } from "./messages.ts";
import type { LoginInput } from "./model.ts";
import { deliverOtp, issueOtp, OTP_TTL_SECONDS, verifyOtp } from "./otp.ts";
import { revokeFamilyOf, rotate, startFamily } from "./refresh.ts";
import { findUserByEmail, getUser, type UserRow } from "../users/repo.ts";
import { nextStep, verifiedMobile, workspaceRequires2fa } from "./repo.ts";
import { resumeData } from "./register-service.ts";
import { loginChallenges } from "./table.ts";

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: string;
}

export interface PasswordLoginResult extends TokenPair {
  user: { id: string; email: string; role: string };
}

export interface ChallengeResult {
  requiresOtp: true;
  loginChallengeToken: string;
  phoneMasked: string | null;
  expiresIn: number;
  /** present (false) only when the send limits held the code back; resend with login/send-otp */
  codeSent?: false;
  /** seconds until login/send-otp may send a code */
  retryAfter?: number;
}

const BAD_CREDENTIALS = "Invalid email or password";

/** An access token (15 minutes) for a member as the database has it now. */
export function accessTokenFor(kit: AuthKit, user: Pick<UserRow, "id" | "workspaceId" | "role">): Promise<string> {
  return signToken(kit.keys, kit.deps.clock, { sub: user.id, tenant: user.workspaceId, role: user.role, typ: "access" }, ACCESS_TTL_SECONDS);
}

async function issueTokens(kit: AuthKit, user: UserRow): Promise<TokenPair> {
  return { accessToken: await accessTokenFor(kit, user), refreshToken: await startFamily(kit, user.workspaceId, user.id), expiresIn: ACCESS_TTL_TEXT };
}

/**
 * POST /api/auth/login (docs/authentication.md). The same 401 and about the same work for an unknown email and a
 * wrong password; failures count per account and IP; unverified accounts get 403 with resume
 * data; a second factor answers a challenge instead of tokens.
 */
export async function login(kit: AuthKit, input: LoginInput, ip: string): Promise<PasswordLoginResult | ChallengeResult> {
  const failureKey = `${input.email}|${ip}`;
  await kit.loginFailures.check(failureKey, "Too many failed logins; retry later");
  await checkCaptcha(kit, input.captchaId, input.captchaAnswer);
  const user = await findUserByEmail(kit.deps.db, input.email);
  const ok = await kit.hasher.verify(input.password, user?.passwordHash);
  if (!ok || !user) {
    await kit.loginFailures.add(failureKey);
    throw errors.unauthorized(BAD_CREDENTIALS);
  }
  await kit.loginFailures.clear(failureKey);
  if (nextStep(user) !== "done") {
    throw errors.forbidden("Finish verifying your account first", await resumeData(kit, user));
  }
  if (user.twoFactorEnabled || (await workspaceRequires2fa(kit.deps.db, user.workspaceId))) return startChallenge(kit, user);
  return { ...(await issueTokens(kit, user)), user: { id: user.id, email: user.email, role: user.role } };
}

async function startChallenge(kit: AuthKit, user: UserRow): Promise<ChallengeResult> {
  const now = nowMs(kit);
  const challengeId = Bun.randomUUIDv7();
  await kit.deps.db
    .insert(loginChallenges)
    .values({ id: challengeId, workspaceId: user.workspaceId, userId: user.id, expiresAt: now + TOKEN_TTL_SECONDS.login_challenge * 1000, createdAt: now })
    .run();
  const loginChallengeToken = await signToken(
    kit.keys,
    kit.deps.clock,
    { sub: user.id, tenant: user.workspaceId, typ: "login_challenge", cid: challengeId },
    TOKEN_TTL_SECONDS.login_challenge,
  );
  const mobile = verifiedMobile(user);
  const result: ChallengeResult = { requiresOtp: true, loginChallengeToken, phoneMasked: maskPhone(mobile), expiresIn: TOKEN_TTL_SECONDS.login_challenge };
  // without a verified mobile number only the identity-provider ID token can complete the challenge
  if (!mobile) return result;
  try {
    await sendLoginCode(kit, user, mobile, challengeId);
  } catch (err) {
    // The send limits (docs/authentication.md) protect the phone, not the login: a right password still gets its
    // challenge, and the client asks for the code with login/send-otp once the wait is over.
    const wait = sendLimitWait(err);
    if (wait === null) throw err;
    return { ...result, codeSent: false, retryAfter: wait };
  }
  return result;
}

/** Seconds to wait when `err` is the OTP send cooldown or hourly cap refusing; null otherwise. */
function sendLimitWait(err: unknown): number | null {
  if (!(err instanceof AppError) || err.code !== "RATE_LIMITED") return null;
  const seconds = Number(err.headers?.["Retry-After"]);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 1;
}

async function sendLoginCode(kit: AuthKit, user: UserRow, mobile: string, challengeId: string): Promise<void> {
  const { id, code } = await issueOtp(kit, { workspaceId: user.workspaceId, userId: user.id, purpose: "login", challengeId }, mobile);
  const text = otpText(code, "login", OTP_TTL_SECONDS / 60);
  await deliverOtp(kit, id, "mobile", () => kit.deps.notifier.sendMobile({ to: mobile, text, kind: "otp" }));
}

/** The user and challenge of a live login challenge token; 401 otherwise. */
async function openChallenge(kit: AuthKit, token: string): Promise<{ user: UserRow; challengeId: string }> {
  const claims = await verifyToken(kit.keys, kit.deps.clock, token, "login_challenge");
  const challengeId = typeof claims?.cid === "string" ? claims.cid : null;
  const now = nowMs(kit);
  const row = challengeId
    ? await kit.deps.db
        .select()
        .from(loginChallenges)
        .where(and(eq(loginChallenges.id, challengeId), isNull(loginChallenges.completedAt), gt(loginChallenges.expiresAt, now)))
        .get()
    : undefined;
  const user = row && claims && row.userId === claims.sub ? await getUser(kit.deps.db, row.workspaceId, row.userId) : undefined;
  if (!user || !challengeId) throw errors.unauthorized("Invalid or expired login challenge; sign in again");
  return { user, challengeId };
}

/** POST login/send-otp: resends the code of a challenge (send limits apply). */
export async function resendLoginOtp(kit: AuthKit, token: string): Promise<{ phoneMasked: string | null; expiresIn: number }> {
  const { user, challengeId } = await openChallenge(kit, token);
  const mobile = verifiedMobile(user);
  if (!mobile) throw errors.conflict("This account has no verified mobile number; use an identity-provider ID token");
  await sendLoginCode(kit, user, mobile, challengeId);
  return { phoneMasked: maskPhone(mobile), expiresIn: OTP_TTL_SECONDS };
}

/** POST login/verify-otp: a code, or an OpenID Connect ID token whose verified email is the user's. */
export async function verifyLogin(kit: AuthKit, input: { loginChallengeToken: string; otpCode?: string; idToken?: string }): Promise<TokenPair> {
  const { user, challengeId } = await openChallenge(kit, input.loginChallengeToken);
  const db = kit.deps.db;
  const now = nowMs(kit);
  // exactly once per challenge: a parallel completion loses here and its transaction rolls back
  const complete = async () => {
    const r = await db
      .update(loginChallenges)
      .set({ completedAt: now })
      .where(and(eq(loginChallenges.id, challengeId), isNull(loginChallenges.completedAt)))
      .returning({ id: loginChallenges.id })
      .all();
    if (r.length !== 1) throw errors.unauthorized("Invalid or expired login challenge; sign in again");
  };
  if (input.otpCode !== undefined) {
    await verifyOtp(kit, { workspaceId: user.workspaceId, userId: user.id, purpose: "login", challengeId }, input.otpCode, "otpCode", complete);
  } else {
    if (!kit.oidc) throw errors.validation({ idToken: "is not accepted: no identity provider is configured" });
    const email = await kit.oidc.verifiedEmail(input.idToken!);
    if (email !== user.email) throw errors.validation({ idToken: "is invalid, expired or not for this account" }, "Invalid ID token");
    await complete();
  }
  return issueTokens(kit, user);
}

/** POST /api/auth/refresh: rotation with reuse detection; the new access token has the current role. */
export async function refresh(kit: AuthKit, token: string): Promise<TokenPair> {
  const next = await rotate(kit, token);
  const user = await getUser(kit.deps.db, next.workspaceId, next.userId);
  if (!user) throw errors.unauthorized("Invalid or expired refresh token");
  return { accessToken: await accessTokenFor(kit, user), refreshToken: next.token, expiresIn: ACCESS_TTL_TEXT };
}

/** POST /api/auth/logout: the refresh token's family can mint nothing more. Idempotent. */
export async function logout(kit: AuthKit, token: string): Promise<void> {
  await revokeFamilyOf(kit, token, "logout");
}
