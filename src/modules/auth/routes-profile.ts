import { Elysia } from "elysia";
import type { AppDeps } from "../../deps.ts";
import { authGuard } from "../../http/auth-guard.ts";
import { ok } from "../../http/envelope.ts";
import type { AuthKit } from "./kit.ts";
import { profileBody } from "./model.ts";
import { profile, updateProfile } from "./profile-service.ts";
import { userIdOf } from "./routes-password.ts";

const tags = ["auth"];

/** The caller's own profile. */
export function profileRoutes(kit: AuthKit, deps: AppDeps) {
  return new Elysia({ prefix: "/api/auth" })
    .use(authGuard(deps))
    .get("/profile", ({ auth }) => ok(profile(kit, auth.workspaceId, userIdOf(auth))), {
      jwt: "read",
      detail: { summary: "The signed-in user's profile", tags },
    })
    .put("/profile", ({ auth, body }) => ok(updateProfile(kit, auth.workspaceId, userIdOf(auth), body.name), "Profile updated"), {
      jwt: "read",
      body: profileBody,
      detail: { summary: "Update the signed-in user's name", tags },
    });
}
