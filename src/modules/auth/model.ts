import { z } from "zod";
import { isCommonPassword } from "../../auth/common-passwords.ts";
import { phoneField } from "../../http/phone.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

/**
 * A string field: "is required" only when it is missing. A value of another type (`"otpCode":
 * 123456` typed from a terminal) is named as such instead of being called missing.
 */
const text = () => z.string({ error: (i) => (i.input === undefined ? "is required" : `must be a string (in quotes), not ${i.input === null ? "null" : typeof i.input}`) });

/** Lower-cased, trimmed email (users are unique by it). */
export const emailField = lazySchema(() =>
  text()
    .trim()
    .toLowerCase()
    .pipe(
      z
        .email({ error: "must be a valid email address" })
        .max(254, "must be at most 254 characters")
        // RFC 5321: a mailbox's local part is at most 64 octets; mail servers refuse longer ones
        .refine((e) => Buffer.byteLength(e.slice(0, e.lastIndexOf("@"))) <= 64, "the part before @ must be at most 64 characters"),
    ),
);

/** A new password (docs/authentication.md): 8-128 characters and not one of the most common passwords. */
export const newPasswordField = lazySchema(() =>
  text()
    .min(8, "must be at least 8 characters")
    .max(128, "must be at most 128 characters")
    .refine((p) => !isCommonPassword(p), "is too common; choose a less predictable password"),
);

/** A password being checked (login, current password): only bounded, never judged. */
export const passwordField = lazySchema(() => text().min(1, "is required").max(128, "must be at most 128 characters"));

/** Digits with the country code, no plus, 8 to 15 digits (docs/api.md). */
export const mobileField = phoneField;

const label = () => text().trim().min(2, "must be 2 to 80 characters").max(80, "must be 2 to 80 characters");

export const otpCodeField = lazySchema(() => text().regex(/^\d{6}$/, "must be 6 digits"));

const token = lazySchema(() => text().min(1, "is required").max(4096, "is too long"));

/** captchaId/captchaAnswer: required when the operator's captcha is `image`, ignored when `off`. */
function captchaFields(required: boolean): { captchaId: z.ZodType<string | undefined>; captchaAnswer: z.ZodType<string | undefined> } {
  const id = z.uuid({ error: (i) => (i.input === undefined ? "is required" : "must be the captchaId from GET /api/auth/captcha") });
  const answer = text().trim().min(1, "is required").max(16, "is too long");
  return required ? { captchaId: id, captchaAnswer: answer } : { captchaId: id.optional(), captchaAnswer: answer.optional() };
}

/**
 * `confirmPassword` equals `password`, checked beside the other fields rather than after them:
 * a check on the whole object is skipped once any field's own check stops short (a malformed
 * mobile, say), so a mismatch would only be told on the next try, after a new captcha. As the
 * other half of an intersection it runs whatever the fields say. It declares no fields (it
 * reads the two from the body as sent, and gives nothing to the merged result), so the API
 * reference shows each field once, as the other half declares it.
 */
export const confirmsPassword = lazySchema(() =>
  z.looseObject({}).transform((b: Record<string, unknown>, ctx) => {
    if (typeof b.password === "string" && typeof b.confirmPassword === "string" && b.password !== b.confirmPassword) {
      ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: "must equal password", input: b.confirmPassword });
    }
    return {};
  }),
);

/** POST /api/auth/register (docs/authentication.md). */
export function registerBody(captcha: boolean) {
  return lazySchema(() =>
    z.intersection(
      z.object({
        name: label(),
        email: emailField,
        password: newPasswordField,
        confirmPassword: text(),
        tenantName: label(),
        mobile: mobileField,
        ...captchaFields(captcha),
      }),
      confirmsPassword,
    ),
  );
}
export type RegisterInput = z.infer<ReturnType<typeof registerBody>>;

/** POST /api/auth/login. */
export function loginBody(captcha: boolean) {
  return lazySchema(() => z.object({ email: emailField, password: passwordField, ...captchaFields(captcha) }));
}
export type LoginInput = z.infer<ReturnType<typeof loginBody>>;

/**
 * Body of the verification routes that take no input; the token may also come in the body (docs/authentication.md).
 * A bodiless POST arrives as "" and counts as no body.
 */
export const registrationTokenBody = lazySchema(() =>
  z.preprocess(
    (v) => (v === "" || v === null ? undefined : v),
    z.object({ registrationToken: token.optional() }).optional(),
  ),
);

export const mobileVerifyBody = lazySchema(() => z.object({ otpCode: otpCodeField, registrationToken: token.optional() }));

/** POST email/verify takes `code`, or its alias `otpCode`. */
export const emailVerifyBody = lazySchema(() =>
  z
    .object({ code: otpCodeField.optional(), otpCode: otpCodeField.optional(), registrationToken: token.optional() })
    .refine((b) => b.code !== undefined || b.otpCode !== undefined, { path: ["code"], message: "is required" }),
);

export const loginChallengeBody = lazySchema(() => z.object({ loginChallengeToken: token }));

/** login/verify-otp: the challenge with an `otpCode`, or with an OpenID Connect `idToken`. */
export const loginVerifyBody = lazySchema(() =>
  z
    .object({ loginChallengeToken: token, otpCode: otpCodeField.optional(), idToken: token.optional() })
    .refine((b) => b.otpCode !== undefined || b.idToken !== undefined, { path: ["otpCode"], message: "is required (or idToken)" }),
);

export const refreshBody = lazySchema(() => z.object({ refreshToken: token }));

export const forgotBody = lazySchema(() => z.object({ email: emailField }));

export const resetBody = lazySchema(() => z.object({ token, password: newPasswordField }));

export const changePasswordBody = lazySchema(() =>
  z
    .object({ currentPassword: passwordField, newPassword: newPasswordField })
    .refine((b) => b.currentPassword !== b.newPassword, { path: ["newPassword"], message: "must differ from the current password" }),
);

export const twoFactorBody = lazySchema(() => z.object({ enabled: z.boolean({ error: "must be true or false" }), password: passwordField }));

export const profileBody = lazySchema(() => z.object({ name: label() }));

/** POST profile/mobile/send-otp. */
/** `password` is required when a verified mobile would be replaced (it is the second factor). */
export const profileMobileBody = lazySchema(() => z.object({ mobile: mobileField, password: passwordField.optional() }));

/** POST profile/mobile/verify: the number the code was sent to, and the code. */
export const profileMobileVerifyBody = lazySchema(() => z.object({ mobile: mobileField, otpCode: otpCodeField }));
