import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import type { AuthKit } from "./kit.ts";
import { login, logout, refresh, resendLoginOtp, verifyLogin } from "./login-service.ts";
import { loginBody, loginChallengeBody, loginVerifyBody, refreshBody } from "./model.ts";
import { clientIp } from "./throttle.ts";
import { routeThrottle } from "./throttle-plugin.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { codeSentToPhoneDoc, loginDoc, tokenPairDoc } from "./docs.ts";

const tags = ["auth"];

/** Password login, the second factor, refresh and logout. */
export function loginRoutes(kit: AuthKit) {
  const captchaOn = kit.deps.config.captcha === "image";
  const throttle = routeThrottle(kit);
  return (app: RoutedApp) => app
    .post(
      "/api/auth/login",
      async ({ body, request }) => {
        const result = await login(kit, body, clientIp(request, kit.server.current, kit.deps.config.trustProxy));
        if (!("requiresOtp" in result)) return ok(result, "Signed in");
        return ok(result, result.codeSent === false ? "A code was sent moments ago; request a new one with login/send-otp after retryAfter seconds" : "Enter the code sent to your mobile");
      },
      { transform: throttle, body: loginBody(captchaOn), detail: { summary: "Password login (captcha); may answer a second-factor challenge", tags, responses: envelopeResponses({ data: loginDoc, errors: [401, 403, 502] }) } },
    )
    .post("/api/auth/login/send-otp", async ({ body }) => ok(await resendLoginOtp(kit, body.loginChallengeToken), "Code sent"), {
      transform: throttle,
      body: loginChallengeBody,
      detail: { summary: "Resend the login code of a challenge", tags, responses: envelopeResponses({ data: codeSentToPhoneDoc, errors: [401, 409, 502] }) },
    })
    .post("/api/auth/login/verify-otp", async ({ body }) => ok(await verifyLogin(kit, body), "Signed in"), {
      transform: throttle,
      body: loginVerifyBody,
      detail: { summary: "Complete a login challenge with otpCode or an OpenID Connect idToken", tags, responses: envelopeResponses({ data: tokenPairDoc, errors: [401] }) },
    })
    .post("/api/auth/refresh", async ({ body }) => ok(await refresh(kit, body.refreshToken)), {
      transform: throttle,
      body: refreshBody,
      detail: { summary: "Exchange a refresh token (rotated on every use)", tags, responses: envelopeResponses({ data: tokenPairDoc, errors: [401] }) },
    })
    .post(
      "/api/auth/logout",
      async ({ body }) => {
        await logout(kit, body.refreshToken);
        return ok(undefined, "Signed out");
      },
      { transform: throttle, body: refreshBody, detail: { summary: "Revoke a refresh token (and its rotations)", tags, responses: envelopeResponses({ data: null }) } },
    );
}
