import { Elysia } from "elysia";
import type { AppDeps } from "./deps.ts";
import { corePlugin } from "./http/core-plugin.ts";
import { errorsPlugin } from "./http/errors-plugin.ts";
import { docsRoutes } from "./modules/docs/routes.ts";
import { healthRoutes } from "./modules/health/routes.ts";
import { contactsRoutes } from "./modules/contacts/routes.ts";
import { inboxRoutes } from "./modules/inbox/routes.ts";
import { mediaRoutes } from "./modules/media/routes.ts";
import { messagesRoutes } from "./modules/messages/routes.ts";

/** Composes the whole HTTP application; never listens (tests call `app.handle`). */
export function buildApp(deps: AppDeps) {
  return new Elysia({ name: "parley" })
    .use(corePlugin(deps.config, deps.log))
    .use(errorsPlugin(deps.log))
    .use(docsRoutes(deps.version))
    .use(healthRoutes(deps))
    .use(messagesRoutes(deps))
    .use(mediaRoutes(deps))
    .use(inboxRoutes(deps))
    .use(contactsRoutes(deps));
}

export type App = ReturnType<typeof buildApp>;
