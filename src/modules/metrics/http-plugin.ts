import { Elysia } from "elysia";
import { requestMeta } from "../../http/request-meta.ts";
import { httpDuration } from "./counters.ts";

/**
 * Times every request into parley_http_request_duration_seconds. The route label is the matched
 * pattern (`/api/v1/chatapp/:id`), never the raw path, so ids cannot multiply the series;
 * requests that matched no route share `unmatched`.
 */
export function httpMetricsPlugin() {
  return new Elysia({ name: "parley-http-metrics" }).onAfterResponse({ as: "global" }, (ctx) => {
    const { request, set, responseValue } = ctx;
    const meta = requestMeta(request);
    const status = meta.status ?? (responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200);
    const route = (ctx as { route?: string }).route || "unmatched";
    httpDuration.observe({ method: request.method, route, status: String(status) }, (performance.now() - meta.start) / 1000);
  });
}
