import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { FetchFailedError, guardedFetch, UrlGuardError } from "../../net/guarded-fetch.ts";
import { formatBytes, MEDIA_CAPS, type MediaKind } from "./model.ts";

/** A file fetched from a client's `mediaUrl`. */
export interface FetchedMedia {
  bytes: Uint8Array;
  declaredMime: string | null;
  filename: string | null;
}

/**
 * Fetches `mediaUrl` the way webhooks are delivered (docs/messages.md): HTTPS only and no private or
 * loopback targets unless the operator allows them, the checked address pinned, redirects
 * not followed, and the body capped at the message type's size cap. Failures are the
 * client's to fix: 400 naming `mediaUrl`.
 */
export async function fetchMediaUrl(deps: Pick<AppDeps, "config">, url: string, kind: MediaKind): Promise<FetchedMedia> {
  const cap = MEDIA_CAPS[kind];
  const fail = (why: string) => errors.validation({ mediaUrl: why });
  let res;
  try {
    res = await guardedFetch(url, {
      allowHttp: deps.config.webhookAllowHttp,
      allowPrivate: deps.config.webhookAllowPrivate,
      timeoutMs: deps.config.mediaFetchTimeoutMs,
      maxBytes: cap,
      headers: { accept: "*/*", "user-agent": "Parley media fetcher" },
    });
  } catch (err) {
    if (err instanceof UrlGuardError) throw fail(`is not allowed: ${err.message}`);
    if (err instanceof FetchFailedError) {
      if (err.reason === "too_large") throw fail(`points to a file larger than ${formatBytes(cap)}, the cap for ${kind} files`);
      throw fail(`could not be fetched: ${err.message}`);
    }
    throw err;
  }
  if (res.status >= 300 && res.status < 400) throw fail(`answered a redirect (HTTP ${res.status}); redirects are not followed`);
  if (res.status < 200 || res.status >= 300) throw fail(`could not be fetched: HTTP ${res.status}`);
  return { bytes: res.body, declaredMime: res.headers.get("content-type"), filename: filenameOf(url) };
}

function filenameOf(url: string): string | null {
  try {
    const last = new URL(url).pathname.split("/").pop() ?? "";
    return decodeURIComponent(last) || null;
  } catch {
    return null;
  }
}
