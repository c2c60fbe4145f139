import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import type { AuthKit } from "../auth/kit.ts";
import { routeThrottle } from "../auth/throttle-plugin.ts";
import { setupDoneDoc, setupStatusDoc } from "./docs.ts";
import { setupBody, setupStatusQuery } from "./model.ts";
import { completeSetup, setupStatus } from "./service.ts";

const tags = ["setup"];

/** /api/setup: the first owner and workspace of a new server, from the setup link of the start log. */
export function setupRoutes(kit: AuthKit) {
  const throttle = routeThrottle(kit);
  return (app: RoutedApp) => app
    .get("/api/setup", async ({ query }) => ok(await setupStatus(kit.deps, query.token)), {
      transform: throttle,
      query: setupStatusQuery,
      detail: {
        summary: "Whether the server still needs its first workspace, whether a setup token is valid, and where codes are delivered",
        tags,
        responses: envelopeResponses({ data: setupStatusDoc }),
      },
    })
    .post(
      "/api/setup",
      async ({ body, set }) => {
        set.status = 201;
        return ok(await completeSetup(kit, body), "Workspace created; you are signed in");
      },
      {
        transform: throttle,
        body: setupBody,
        detail: {
          summary: "Create the first owner and workspace (unlimited plan) with the one-time setup link's token; answers tokens as a login",
          tags,
          responses: envelopeResponses({ status: 201, data: setupDoneDoc, errors: [404, 409] }),
        },
      },
    );
}
