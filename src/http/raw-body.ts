/**
 * Bodies kept as sent, for the few routes whose handler must read the exact bytes (a signature
 * over them, e.g. the payment webhook): the app's body parser turns a JSON body into an object
 * before any route's own hook runs, so it keeps the text it read for the paths registered here
 * (their exact path, as the request names it).
 */
const paths = new Set<string>();
const kept = new WeakMap<Request, string>();

/** The body parser keeps the text of requests to `path` (a route module calls it while the app is built). */
export function keepRawBody(path: string): void {
  paths.add(path);
}

/** Called by the body parser with the text it read: kept when the request's path asked for it. */
export function parsedText(request: Request, path: string, text: string): void {
  if (paths.size && paths.has(path)) kept.set(request, text);
}

/** The text the body parser read for this request, if its path keeps it. */
export function rawBodyOf(request: Request): string | undefined {
  return kept.get(request);
}
