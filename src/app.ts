import { Elysia } from "elysia";
import type { AppDeps } from "./deps.ts";
import { corePlugin } from "./http/core-plugin.ts";
import { errorsPlugin } from "./http/errors-plugin.ts";
import { docsRoutes } from "./modules/docs/routes.ts";
import { healthRoutes } from "./modules/health/routes.ts";
import { webhookRoutes } from "./modules/webhooks/routes.ts";

/** Composes the whole HTTP application; never listens (tests call `app.handle`). */
export function buildApp(deps: AppDeps) {
  return new Elysia({ name: "parley" })
    .use(corePlugin(deps.config, deps.log))
    .use(errorsPlugin(deps.log))
    .use(docsRoutes(deps.version))
    .use(healthRoutes(deps))
    .use(webhookRoutes(deps));
}

export type App = ReturnType<typeof buildApp>;
