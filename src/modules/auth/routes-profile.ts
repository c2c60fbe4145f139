import { callerRow } from "../../http/auth-guard.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import type { AuthKit } from "./kit.ts";
import { sendChangeMobileOtp, verifyChangeMobile } from "./mobile-service.ts";
import { profileBody, profileMobileBody, profileMobileVerifyBody } from "./model.ts";
import { profile, updateProfile } from "./profile-service.ts";
import { userIdOf } from "./routes-password.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { codeSentToPhoneDoc, profileDoc, profileMobileDoc, profileNameDoc } from "./docs.ts";

const tags = ["auth"];
const enveloped = <T>(data: T) => ({ success: true as const, data });

/** The caller's own profile, and adding or changing its mobile number. */
export function profileRoutes(kit: AuthKit) {
  return (app: RoutedApp) => app
    // ok()'s envelope written out: a handler returning a call (`return f(`) is awaited by Elysia's compiled route (see
    // authGuard); the guard's row answers at once, and only without it is the profile read (a promise)
    .get("/api/auth/profile", ({ auth, request }) => {
      const p = profile(kit, auth.workspaceId, userIdOf(auth), callerRow(request));
      return p instanceof Promise ? p.then(enveloped) : { success: true as const, data: p };
    }, {
      jwt: "read",
      detail: { summary: "The signed-in user's profile", tags, responses: envelopeResponses({ data: profileDoc }) },
    })
    .put("/api/auth/profile", async ({ auth, body }) => ok(await updateProfile(kit, auth.workspaceId, userIdOf(auth), body.name), "Profile updated"), {
      jwt: "read",
      body: profileBody,
      detail: { summary: "Update the signed-in user's name", tags, responses: envelopeResponses({ data: profileNameDoc }) },
    })
    .post(
      "/api/auth/profile/mobile/send-otp",
      async ({ auth, body }) => ok(await sendChangeMobileOtp(kit, auth.workspaceId, userIdOf(auth), body.mobile, body.password), "Code sent"),
      { jwt: "read", body: profileMobileBody, detail: { summary: "Send a code to a new mobile number of the signed-in user (nothing changes yet)", tags, responses: envelopeResponses({ data: codeSentToPhoneDoc, errors: [409, 502] }) } },
    )
    .post(
      "/api/auth/profile/mobile/verify",
      async ({ auth, body }) => ok(await verifyChangeMobile(kit, auth.workspaceId, userIdOf(auth), body.mobile, body.otpCode), "Mobile number verified"),
      { jwt: "read", body: profileMobileVerifyBody, detail: { summary: "Verify the new mobile number with its code; it becomes the user's mobile", tags, responses: envelopeResponses({ data: profileMobileDoc }) } },
    );
}
