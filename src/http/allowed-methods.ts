/**
 * Which methods a path answers to, from the app's own route table: a request with another
 * method is answered 405 with `Allow` (not 404, which says the path does not exist).
 */
export type AllowedMethods = (path: string) => string[];

/** Builds the lookup once from the routes (method and pattern: `:param` one segment, `*` the rest). */
export function allowedMethods(routes: readonly { method: string; path: string }[]): AllowedMethods {
  const table = routes.map((r) => ({
    // a WebSocket route is a GET that upgrades
    method: r.method === "WS" ? "GET" : r.method.toUpperCase(),
    re: new RegExp(
      "^" +
        r.path
          .replace(/\/+$/, "")
          .split("/")
          .map((seg) => (seg === "*" ? ".*" : seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
          .join("/") +
        "/?$",
    ),
  }));
  return (path) => {
    const found = new Set<string>();
    for (const r of table) if (r.re.test(path)) found.add(r.method);
    if (found.has("GET")) found.add("HEAD");
    return [...found].sort();
  };
}
