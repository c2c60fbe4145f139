import { nodeTls } from "../node/lazy.ts";
import { startDeadline } from "./deadlines.ts";
import { checkUrl, type CheckedUrl, type ResolvedAddress, type Resolver } from "./url-guard.ts";

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
/** System roots plus one extra CA (a `ca` option replaces the roots otherwise). */
function trustedWith(ca: string): string[] {
  let list = trustCache.get(ca);
  if (!list) trustCache.set(ca, (list = [...nodeTls().rootCertificates, ca]));
  return list;
}

function networkError(err: unknown): FetchFailedError {
  if (err instanceof FetchFailedError) return err;
  const e = err as { code?: string; message?: string };
  return new FetchFailedError("network", e.message ?? String(err), e.code);
}

/** The checked address as a URL host (IPv6 in brackets). */
const urlHost = (a: ResolvedAddress) => (a.family === 6 ? `[${a.address}]` : a.address);

/** Reads a response body under the byte cap (fails) or the excerpt size (stops reading). */
async function readBody(res: Response, opts: GuardedFetchOptions): Promise<{ body: Uint8Array; truncated: boolean }> {
  const length = res.headers.get("content-length");
  const declared = length === null ? NaN : Number(length);
  if (opts.maxBytes !== undefined && declared > opts.maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new FetchFailedError("too_large", `response body of ${declared} bytes exceeds the cap of ${opts.maxBytes} bytes`);
  }
  // the usual short answer with a declared length within both limits: read whole, no stream reader
  // (and no `res.body` stream object: bytes() of an answer without a body is empty too)
  if (declared <= (opts.truncateBytes ?? Infinity) && declared <= (opts.maxBytes ?? Infinity)) return { body: await res.bytes(), truncated: false };
  if (!res.body) return { body: new Uint8Array(0), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (opts.maxBytes !== undefined && size > opts.maxBytes) {
      await reader.cancel().catch(() => {});
      throw new FetchFailedError("too_large", `response body exceeds the cap of ${opts.maxBytes} bytes`);
    }
    if (opts.truncateBytes !== undefined && size >= opts.truncateBytes) {
      chunks.push(value.subarray(0, value.byteLength - (size - opts.truncateBytes)));
      await reader.cancel().catch(() => {}); // the rest is not wanted: do not wait for it
      return { body: Buffer.concat(chunks), truncated: size > opts.truncateBytes };
    }
    chunks.push(value);
  }
  return { body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), truncated: false };
}

/** Where to connect for a checked URL: the checked address in place of the host name. */
interface Target {
  checked: CheckedUrl;
  href: string;
  secure: boolean;
  /** the host is an IP literal: no SNI name */
  isLiteral: boolean;
  /** the URL dialled already names the host as the checked URL does (an IP literal): fetch's own Host header is right */
  sameHost: boolean;
}

function targetOf(checked: CheckedUrl): Target {
  const target = new URL(checked.url.href);
  target.hostname = urlHost(checked.addresses[0]!);
  return {
    checked,
    href: target.href,
    secure: checked.url.protocol === "https:",
    isLiteral: checked.addresses.some((a) => a.address === checked.host),
    sameHost: target.host === checked.url.host,
  };
}

/** by the two settings (allowHttp 2, allowPrivate 1), then by URL: no key text to build per request */
const literalTargets = [0, 1, 2, 3].map(() => new Map<string, Target>());
/**
 * The cache of checked targets of URLs whose host is an IP literal, under these settings: without
 * DNS the check is a pure function of the URL and the two settings (a host NAME is resolved and
 * checked on every request, as rebinding requires).
 */
function targetCache(opts: GuardedFetchOptions): Map<string, Target> {
  return literalTargets[(opts.allowHttp ? 2 : 0) + (opts.allowPrivate ? 1 : 0)]!;
}

/** Checks (DNS included) under the deadline: resolving is not abortable, so it is raced. */
async function checkTarget(rawUrl: string, opts: GuardedFetchOptions, cache: Map<string, Target>, signal: AbortSignal): Promise<Target> {
  const expired = new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
  expired.catch(() => {}); // raced below; a late rejection is not news
  const t = targetOf(await Promise.race([checkUrl(rawUrl, opts), expired]));
  if (t.isLiteral && !opts.resolver) {
    if (cache.size >= 1024) cache.clear();
    cache.set(rawUrl, t);
  }
  return t;
}

/**
 * One HTTP(S) request to a URL that passed the guard: DNS is resolved here, every address
 * must be allowed, and the request goes to the first of those same addresses: Bun's fetch
 * dials the address written in the URL, sends the host name in `Host` and, over TLS, uses
 * it for SNI and verifies the certificate against it (`tls.serverName`; each name has its
 * own TLS context and keep-alive pool). Redirects are returned as they are, never followed;
 * no proxy is used (the environment's would be judged against the address, not the name).
 * The time-out covers all of it: fetch rejects with the deadline's reason whether it passes
 * before the answer's head or while its body is read.
 * Throws UrlGuardError for refusals and FetchFailedError for timeouts, oversize and I/O errors.
 */
export async function guardedFetch(rawUrl: string, opts: GuardedFetchOptions): Promise<GuardedResponse> {
  const started = performance.now();
  const deadline = startDeadline(opts.timeoutMs, () => new FetchFailedError("timeout", `no complete answer within ${opts.timeoutMs} ms`));
  const { signal } = deadline;
  try {
    const cache = targetCache(opts);
    const hit = opts.resolver ? undefined : cache.get(rawUrl);
    const { checked, href, secure, isLiteral, sameHost } = hit ?? (await checkTarget(rawUrl, opts, cache, signal));
    const res = await fetch(href, {
      method: opts.method ?? "GET",
      headers: sameHost ? opts.headers : { ...opts.headers, host: checked.url.host },
      body: opts.body,
      redirect: "manual",
      proxy: false,
      signal,
      // SNI and the certificate check use the host name; for an IP literal there is none
      tls: secure ? { serverName: isLiteral ? undefined : checked.host, ca: opts.ca ? trustedWith(opts.ca) : undefined } : undefined,
    } as RequestInit).catch((err) => {
      throw signal.aborted ? signal.reason : networkError(err);
    });
    const read = await readBody(res, opts).catch((err) => {
      if (signal.aborted) throw signal.reason;
      throw err instanceof FetchFailedError ? err : networkError(err);
    });
    return { status: res.status, headers: res.headers, ...read, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    deadline.abort(); // free the connection at once (a complete answer keeps it for reuse)
    throw err;
  } finally {
    deadline.done();
  }
}
