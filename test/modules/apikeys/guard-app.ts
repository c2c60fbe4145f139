import { Elysia } from "elysia";
import { authGuard } from "../../../src/http/auth-guard.ts";
import { corePlugin } from "../../../src/http/core-plugin.ts";
import { ok } from "../../../src/http/envelope.ts";
import { errorsPlugin } from "../../../src/http/errors-plugin.ts";
import type { TestApp } from "../../helpers/app.ts";

/**
 * The real plugins and guard over a test app's deps, with three probe routes: the external
 * routes (GET /api/external/sessions, POST /api/v1/messages/send) belong to other modules.
 */
export function guardApp(t: TestApp) {
  const app = new Elysia()
    .use(corePlugin(t.deps.config, t.deps.log))
    .use(errorsPlugin(t.deps.log))
    .use(authGuard(t.deps))
    .get("/api/external/probe", ({ auth }) => ok(auth), { apiKey: "read" })
    .get("/api/probe", ({ auth }) => ok(auth), { jwt: "read" })
    .post("/api/probe/either", ({ auth }) => ok(auth), { jwtOrApiKey: "messaging" });
  return async (method: string, path: string, o: { token?: string; apiKey?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.apiKey) headers["x-api-key"] = o.apiKey;
    const res = await app.handle(new Request(`http://localhost${path}`, { method, headers }));
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
}
