import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { createAuthKit } from "./kit.ts";
import { loginRoutes } from "./routes-login.ts";
import { passwordRoutes } from "./routes-password.ts";
import { profileRoutes } from "./routes-profile.ts";
import { registerRoutes } from "./routes-register.ts";
import { setupRoutes } from "../setup/routes.ts";

/** Every route under /api/auth (docs/authentication.md). */
export function authRoutes(deps: AppDeps) {
  const kit = createAuthKit(deps);
  return (app: RoutedApp) => app
    .onStart((app) => {
      kit.server.current = app.server;
    })
    .use(registerRoutes(kit))
    .use(loginRoutes(kit))
    .use(passwordRoutes(kit))
    .use(profileRoutes(kit))
    // the setup link signs its owner in as a login does: it shares the auth kit
    .use(setupRoutes(kit));
}
