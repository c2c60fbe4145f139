import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import tls from "node:tls";
import { checkUrl, type ResolvedAddress, type Resolver } from "./url-guard.ts";

export { assertSafeUrl, UrlGuardError } from "./url-guard.ts";

export interface GuardedFetchOptions {
  /** allow plain http:// (operator setting for local receivers) */
  allowHttp: boolean;
  /** allow loopback, private, link-local, CGNAT and reserved targets (operator setting) */
  allowPrivate: boolean;
  /** whole request: DNS, connect, TLS, sending and reading the answer */
  timeoutMs: number;
  /** a response body larger than this fails with FetchFailedError("too_large") */
  maxBytes?: number;
  /** read at most this many bytes of the body, then stop reading without failing (excerpts) */
  truncateBytes?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** extra trusted CA certificates (PEM), added to the system roots */
  ca?: string;
  resolver?: Resolver;
}

export interface GuardedResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** true when `truncateBytes` cut the body short */
  truncated: boolean;
  durationMs: number;
}

export type FetchFailReason = "timeout" | "too_large" | "network";

/** A request that was allowed but did not produce a complete answer. */
export class FetchFailedError extends Error {
  constructor(
    readonly reason: FetchFailReason,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "FetchFailedError";
  }
}

const trustCache = new Map<string, string[]>();
/** System roots plus one extra CA (node's `ca` replaces the roots otherwise). */
function trustedWith(ca: string): string[] {
  let list = trustCache.get(ca);
  if (!list) trustCache.set(ca, (list = [...tls.rootCertificates, ca]));
  return list;
}

/** Connection pools per trust setting; keep-alive sockets only ever point at addresses that were checked. */
const agents = new Map<string, http.Agent>();
function agentFor(secure: boolean, ca: string | undefined): http.Agent {
  const key = `${secure}:${ca ?? ""}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = secure
      ? new https.Agent({ keepAlive: true, maxSockets: 64, ca: ca ? trustedWith(ca) : undefined })
      : new http.Agent({ keepAlive: true, maxSockets: 64 });
    agents.set(key, agent);
  }
  return agent;
}

/** A `lookup` that answers only with the addresses already checked: no second resolution, no rebinding window. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, addresses.map((a) => ({ address: a.address, family: a.family })));
    else cb(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as LookupFunction;
}

function toHeaders(raw: http.IncomingHttpHeaders): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
  }
  return h;
}

function networkError(err: unknown): FetchFailedError {
  if (err instanceof FetchFailedError) return err;
  const e = err as { code?: string; message?: string };
  return new FetchFailedError("network", e.message ?? String(err), e.code);
}

/**
 * One HTTP(S) request to a URL that passed the guard: DNS is resolved here, every address
 * must be allowed, and the socket connects to those same addresses (TLS SNI and Host stay
 * the host name). Redirects are returned as they are, never followed.
 * Throws UrlGuardError for refusals and FetchFailedError for timeouts, oversize and I/O errors.
 */
export async function guardedFetch(rawUrl: string, opts: GuardedFetchOptions): Promise<GuardedResponse> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FetchFailedError("timeout", `no complete answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
  });
  let req: http.ClientRequest | undefined;
  let completed = false;
  try {
    const checked = await Promise.race([checkUrl(rawUrl, opts), deadline]);
    const result = await Promise.race([
      new Promise<Omit<GuardedResponse, "durationMs">>((resolve, reject) => {
        const secure = checked.url.protocol === "https:";
        const body = opts.body === undefined ? undefined : typeof opts.body === "string" ? Buffer.from(opts.body) : opts.body;
        const headers: Record<string, string> = { host: checked.url.host, ...opts.headers };
        if (body) headers["content-length"] = String(body.byteLength);
        const options: https.RequestOptions = {
          hostname: checked.host,
          port: checked.url.port || (secure ? 443 : 80),
          path: checked.url.pathname + checked.url.search,
          method: opts.method ?? "GET",
          headers,
          lookup: pinnedLookup(checked.addresses),
          agent: agentFor(secure, opts.ca),
        };
        if (secure) {
          if (opts.ca) options.ca = trustedWith(opts.ca);
          // SNI is the host name; for an IP literal there is none
          if (!checked.addresses.some((a) => a.address === checked.host)) options.servername = checked.host;
        }
        req = (secure ? https : http).request(options, (res) => {
          const status = res.statusCode ?? 0;
          const declared = Number(res.headers["content-length"]);
          if (opts.maxBytes !== undefined && declared > opts.maxBytes) {
            res.destroy();
            return reject(new FetchFailedError("too_large", `response body of ${declared} bytes exceeds the cap of ${opts.maxBytes} bytes`));
          }
          const chunks: Buffer[] = [];
          let size = 0;
          let settled = false;
          const finish = (truncated: boolean) => {
            if (settled) return;
            settled = true;
            resolve({ status, headers: toHeaders(res.headers), body: new Uint8Array(Buffer.concat(chunks)), truncated });
          };
          res.on("data", (chunk: Buffer) => {
            if (settled) return;
            size += chunk.byteLength;
            if (opts.maxBytes !== undefined && size > opts.maxBytes) {
              settled = true;
              res.destroy();
              return reject(new FetchFailedError("too_large", `response body exceeds the cap of ${opts.maxBytes} bytes`));
            }
            if (opts.truncateBytes !== undefined && size >= opts.truncateBytes) {
              chunks.push(chunk.subarray(0, chunk.byteLength - (size - opts.truncateBytes)));
              res.destroy(); // the rest is not wanted: do not wait for it
              return finish(size > opts.truncateBytes);
            }
            chunks.push(chunk);
          });
          res.on("end", () => finish(false));
          res.on("error", (err) => {
            if (!settled) {
              settled = true;
              reject(networkError(err));
            }
          });
        });
        req.on("error", (err) => reject(networkError(err)));
        req.end(body);
      }),
      deadline,
    ]);
    completed = true;
    return { ...result, durationMs: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
    // on timeout or failure, free the socket at once (a complete answer keeps it for reuse)
    if (!completed && req && !req.destroyed) req.destroy();
  }
}
