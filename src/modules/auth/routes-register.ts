import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import { issueCaptcha } from "./captcha-service.ts";
import type { AuthKit } from "./kit.ts";
import { emailVerifyBody, mobileVerifyBody, registerBody, registrationTokenBody } from "./model.ts";
import { register, sendEmailCode, sendMobileOtp, userOfRegistrationToken, verifyEmail, verifyMobileOtp } from "./register-service.ts";
import { routeThrottle } from "./throttle-plugin.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { captchaDoc, codeSentToEmailDoc, codeSentToPhoneDoc, emailVerifiedDoc, mobileVerifiedDoc, registrationDoc } from "./docs.ts";

const tags = ["auth"];
const BEARER = /^Bearer\s+(\S+)$/i;

/** The registration token (docs/authentication.md) rides in `Authorization: Bearer`, or in the body as `registrationToken`. */
function carriedToken(headers: Record<string, string | undefined>, body: unknown): string | undefined {
  const fromHeader = headers.authorization?.match(BEARER)?.[1];
  const fromBody = (body as { registrationToken?: string } | undefined)?.registrationToken;
  return fromHeader ?? fromBody;
}

const tokenDoc = { security: [{ bearer: [] }] };

/** Captcha, registration and the four verification routes. */
export function registerRoutes(kit: AuthKit) {
  const captchaOn = kit.deps.config.captcha === "image";
  const throttle = routeThrottle(kit);
  return (app: RoutedApp) => app
    .get("/api/auth/captcha", async () => ok(await issueCaptcha(kit)), {
      transform: throttle,
      detail: { summary: "A one-time captcha (PNG data URI, 5 characters, 5 minutes)", tags, responses: envelopeResponses({ data: captchaDoc }) },
    })
    .post(
      "/api/auth/register",
      async ({ body, set }) => {
        const result = await register(kit, body);
        set.status = 201;
        return ok(result, "Account created; verify your mobile number, then your email");
      },
      { transform: throttle, body: registerBody(captchaOn), detail: { summary: "Register a workspace and its owner (trial starts)", tags, responses: envelopeResponses({ status: 201, data: registrationDoc, errors: [409, 502] }) } },
    )
    .post(
      "/api/auth/mobile/send-otp",
      async ({ headers, body }) => {
        const user = await userOfRegistrationToken(kit, carriedToken(headers, body));
        return ok(await sendMobileOtp(kit, user), "Code sent");
      },
      { transform: throttle, body: registrationTokenBody, detail: { summary: "Send the mobile verification code (registration token)", tags, ...tokenDoc, responses: envelopeResponses({ data: codeSentToPhoneDoc, errors: [409, 502] }) } },
    )
    .post(
      "/api/auth/mobile/verify-otp",
      async ({ headers, body }) => {
        const user = await userOfRegistrationToken(kit, carriedToken(headers, body));
        return ok(await verifyMobileOtp(kit, user, body.otpCode), "Mobile number verified");
      },
      { transform: throttle, body: mobileVerifyBody, detail: { summary: "Verify the mobile number with its code (registration token)", tags, ...tokenDoc, responses: envelopeResponses({ data: mobileVerifiedDoc, errors: [409] }) } },
    )
    .post(
      "/api/auth/email/send-verification-code",
      async ({ headers, body }) => {
        const user = await userOfRegistrationToken(kit, carriedToken(headers, body));
        return ok(await sendEmailCode(kit, user), "Code sent");
      },
      { transform: throttle, body: registrationTokenBody, detail: { summary: "Send the email verification code (registration token)", tags, ...tokenDoc, responses: envelopeResponses({ data: codeSentToEmailDoc, errors: [409, 500] }) } },
    )
    .post(
      "/api/auth/email/verify",
      async ({ headers, body }) => {
        const user = await userOfRegistrationToken(kit, carriedToken(headers, body));
        const field = body.code !== undefined ? "code" : "otpCode";
        return ok(await verifyEmail(kit, user, (body.code ?? body.otpCode)!, field), "Email verified; you can sign in");
      },
      { transform: throttle, body: emailVerifyBody, detail: { summary: "Verify the email with its code (registration token)", tags, ...tokenDoc, responses: envelopeResponses({ data: emailVerifiedDoc, errors: [409] }) } },
    );
}
