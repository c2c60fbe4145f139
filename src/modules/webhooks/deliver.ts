import { readFileSync } from "node:fs";
import type { AppDeps } from "../../deps.ts";
import { FetchFailedError, guardedFetch, type GuardedResponse } from "../../net/guarded-fetch.ts";
import { UrlGuardError } from "../../net/url-guard.ts";
import { openSecret, signatureHex, signerFor, standardSignature, type Signer } from "./signing.ts";
import type { ClaimedDelivery } from "./store.ts";
import { recordAttempt, type AttemptOutcome } from "./record.ts";
import { TextMemo } from "../../memo.ts";

/** Stored response body excerpt cap (docs/webhooks.md). */
export const RESPONSE_EXCERPT_BYTES = 4096;
/** Payload cap (docs/webhooks.md). */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

/** How long a claim holds: the whole request (DNS included) is bounded by the time-out; the margin covers recording. */
export function leaseMs(deps: Pick<AppDeps, "config">): number {
  return deps.config.webhookTimeoutMs + 5_000;
}

const caCache = new Map<string, string>();
/** The operator's extra CA (PEM), read once (at start-up: a missing file stops the server). */
export function extraCa(path: string | undefined): string | undefined {
  if (!path) return undefined;
  let pem = caCache.get(path);
  if (pem === undefined) caCache.set(path, (pem = readFileSync(path, "utf8")));
  return pem;
}

/** The delivery headers: the four X-Webhook-* headers, X-Webhook-Timestamp and Standard Webhooks' three (docs/webhooks.md). */
export function deliveryHeaders(d: Pick<ClaimedDelivery, "id" | "eventType" | "payload" | "attempts" | "isTest">, secret: string | Signer, unixSeconds: number, version: string): Record<string, string> {
  const h: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": `Parley-Webhooks/${version}`,
    "x-webhook-event": d.eventType,
    "x-webhook-signature": signatureHex(secret, d.payload),
    "x-webhook-delivery-id": d.id,
    "x-webhook-attempt": String(d.attempts),
    "x-webhook-timestamp": String(unixSeconds),
    "webhook-id": d.id,
    "webhook-timestamp": String(unixSeconds),
    "webhook-signature": standardSignature(secret, d.id, unixSeconds, d.payload),
  };
  if (d.isTest) h["x-webhook-test"] = "true";
  return h;
}

/** Seconds of a Retry-After header (delta or HTTP date), or null. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

function describeFailure(res: GuardedResponse): string {
  if (res.status >= 300 && res.status < 400) return `redirect not followed (${res.status}${res.headers.get("location") ? ` to ${res.headers.get("location")}` : ""})`;
  return `receiver answered ${res.status}`;
}

const utf8 = new TextDecoder();
let opened = new TextMemo<Signer>(1024);
let openedWith: string | undefined;
/**
 * A webhook's secret, opened and keyed for signing once per sealed value (a rotation seals a new
 * one: a new entry). Keyed by the sealed value alone, per data-dir key: a server has one key, so
 * there is no key + sealed text (about 170 characters) to build and hash per attempt; another key
 * starts over.
 */
function openedSigner(sealed: string, keyHex: string): Signer {
  if (keyHex !== openedWith) {
    opened = new TextMemo<Signer>(1024);
    openedWith = keyHex;
  }
  return opened.get(sealed, () => signerFor(openSecret(sealed, keyHex)));
}

export type SendOutcome = Omit<AttemptOutcome, "status" | "nextAttemptAt" | "deactivated">;

/** Sends one claimed delivery and records the outcome; never throws for receiver-side failures. */
export async function attemptDelivery(deps: AppDeps, d: ClaimedDelivery, opts: { manual?: boolean } = {}): Promise<AttemptOutcome> {
  const at = deps.clock.now().getTime();
  const outcome = await sendAttempt(deps, d, at);
  return recordAttempt(deps, d, outcome, { manual: !!opts.manual, at });
}

/** The HTTP half of an attempt: signs and POSTs the stored payload; records nothing. */
export async function sendAttempt(deps: AppDeps, d: ClaimedDelivery, started: number): Promise<SendOutcome> {
  const perfStart = performance.now();
  let outcome: SendOutcome;
  try {
    const signer = openedSigner(d.secretEnc, deps.secrets.credentialKey);
    const res = await guardedFetch(d.url, {
      allowHttp: deps.config.webhookAllowHttp,
      allowPrivate: deps.config.webhookAllowPrivate,
      timeoutMs: deps.config.webhookTimeoutMs,
      truncateBytes: RESPONSE_EXCERPT_BYTES,
      method: "POST",
      headers: deliveryHeaders(d, signer, Math.floor(started / 1000), deps.version),
      body: d.payload,
      ca: extraCa(deps.config.webhookCaFile),
    });
    const ok = res.status >= 200 && res.status < 300;
    outcome = {
      ok,
      gone: res.status === 410,
      responseStatus: res.status,
      responseBody: utf8.decode(res.body),
      durationMs: res.durationMs,
      error: ok ? null : describeFailure(res),
      retryAfterSeconds: ok ? null : parseRetryAfter(res.headers.get("retry-after"), started),
    };
  } catch (err) {
    const error =
      err instanceof UrlGuardError ? `URL refused: ${err.message}`
      : err instanceof FetchFailedError ? (err.reason === "timeout" ? `timed out after ${deps.config.webhookTimeoutMs} ms` : `request failed: ${err.message}`)
      : `request failed: ${err instanceof Error ? err.message : String(err)}`;
    outcome = { ok: false, gone: false, responseStatus: null, responseBody: null, durationMs: Math.round(performance.now() - perfStart), error, retryAfterSeconds: null };
  }
  return outcome;
}
