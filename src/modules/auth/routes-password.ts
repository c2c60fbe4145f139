import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import type { AuthKit } from "./kit.ts";
import { changePasswordBody, forgotBody, resetBody, twoFactorBody } from "./model.ts";
import { changePassword, FORGOT_MESSAGE, forgotPassword, resetPassword, setTwoFactor } from "./password-service.ts";
import { routeThrottle } from "./throttle-plugin.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { twoFactorDoc } from "./docs.ts";

const tags = ["auth"];

/** Forgotten, reset and changed passwords, and the second-factor switch. */
export function passwordRoutes(kit: AuthKit) {
  const throttle = routeThrottle(kit);
  return (app: RoutedApp) => app
    .post(
      "/api/auth/forgot-password",
      async ({ body }) => {
        await forgotPassword(kit, body.email);
        return ok(undefined, FORGOT_MESSAGE);
      },
      { transform: throttle, body: forgotBody, detail: { summary: "Send a reset link if the account exists (always 200)", tags, responses: envelopeResponses({ data: null }) } },
    )
    .post(
      "/api/auth/reset-password",
      async ({ body }) => {
        await resetPassword(kit, body.token, body.password);
        return ok(undefined, "Password changed; sign in with the new password");
      },
      { transform: throttle, body: resetBody, detail: { summary: "Set a new password with the emailed token", tags, responses: envelopeResponses({ data: null }) } },
    )
    .post(
      "/api/auth/change-password",
      async ({ auth, body }) => {
        await changePassword(kit, auth.workspaceId, userIdOf(auth), body.currentPassword, body.newPassword);
        return ok(undefined, "Password changed; other sessions are signed out");
      },
      { transform: throttle, jwt: "read", body: changePasswordBody, detail: { summary: "Change the password (current password required)", tags, responses: envelopeResponses({ data: null }) } },
    )
    .put("/api/auth/2fa", async ({ auth, body }) => ok(await setTwoFactor(kit, auth.workspaceId, userIdOf(auth), body.enabled, body.password)), {
      transform: throttle,
      jwt: "read",
      body: twoFactorBody,
      detail: { summary: "Turn the login second factor on or off (password required)", tags, responses: envelopeResponses({ data: twoFactorDoc, errors: [409] }) },
    });
}

/** The JWT guard always yields a user; the narrowing keeps the types honest. */
export function userIdOf(auth: { kind: string; userId?: string }): string {
  if (auth.kind !== "user" || !auth.userId) throw new Error("JWT route without a user");
  return auth.userId;
}
