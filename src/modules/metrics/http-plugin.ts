import { Elysia } from "elysia";
import { requestMeta } from "../../http/request-meta.ts";
import { instruments, type Instruments } from "./counters.ts";

type Child = ReturnType<Instruments["httpDuration"]["labels"]>;

/**
 * Times every request into parley_http_request_duration_seconds. The route label is the matched
 * pattern (`/api/v1/chatapp/:id`), never the raw path, so ids cannot multiply the series;
 * requests that matched no route share `unmatched`. The labelled child of each (method, route,
 * status) is looked up once and kept, so a request costs one map lookup and one observe.
 */
export function httpMetricsPlugin() {
  const { httpDuration } = instruments();
  const children = new Map<string, Child>();
  return new Elysia({ name: "parley-http-metrics" }).onAfterResponse({ as: "global" }, (ctx) => {
    const { request, set, responseValue } = ctx;
    const meta = requestMeta(request);
    const status = meta.status ?? (responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200);
    const route = (ctx as { route?: string }).route || "unmatched";
    const key = `${request.method} ${status} ${route}`;
    let child = children.get(key);
    if (!child) children.set(key, (child = httpDuration.labels(request.method, route, String(status))));
    child.observe((performance.now() - meta.start) / 1000);
  });
}
