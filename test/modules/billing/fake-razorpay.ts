import type { Server } from "bun";

export interface FakeRazorpay {
  url: string;
  keyId: string;
  keySecret: string;
  /** orders requests as received (after auth) */
  requests: { authorization: string | null; body: any }[];
  /** make the next order requests fail with this HTTP status */
  failWith: number | null;
  stop(): void;
}

/**
 * A local server on 127.0.0.1 speaking Razorpay's documented Orders API: POST /v1/orders with
 * HTTP basic auth, body {amount (paise, >= 100), currency, receipt (<= 40 chars), notes}, answering
 * the order entity; failures in Razorpay's error shape.
 */
export function startFakeRazorpay(keyId = "rzp_test_parley", keySecret = "test_key_secret_123"): FakeRazorpay {
  const state: FakeRazorpay = { url: "", keyId, keySecret, requests: [], failWith: null, stop: () => server.stop(true) };
  const error = (status: number, description: string) =>
    Response.json({ error: { code: "BAD_REQUEST_ERROR", description, source: "business", step: "payment_initiation", reason: "input_validation_failed" } }, { status });
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/orders") return error(404, "The requested URL was not found on the server.");
      const expected = `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString("base64")}`;
      if (req.headers.get("authorization") !== expected) return error(401, "Authentication failed");
      const body = (await req.json()) as any;
      state.requests.push({ authorization: req.headers.get("authorization"), body });
      if (state.failWith) return error(state.failWith, "Simulated failure");
      if (!Number.isInteger(body.amount) || body.amount < 100) return error(400, "The amount must be atleast INR 1.00");
      if (body.currency !== "INR") return error(400, "The currency is invalid");
      if (typeof body.receipt !== "string" || body.receipt.length > 40) return error(400, "The receipt may not be greater than 40 characters.");
      return Response.json({
        id: `order_${Bun.randomUUIDv7().replaceAll("-", "").slice(-14)}`,
        entity: "order",
        amount: body.amount,
        amount_paid: 0,
        amount_due: body.amount,
        currency: body.currency,
        receipt: body.receipt,
        offer_id: null,
        status: "created",
        attempts: 0,
        notes: body.notes ?? [],
        created_at: Math.floor(Date.now() / 1000),
      });
    },
  });
  state.url = `http://127.0.0.1:${server.port}`;
  return state;
}

/** HMAC-SHA256 hex with WebCrypto: an implementation independent of the server's node:crypto. */
export async function hmacHexWebCrypto(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const sig = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message));
  return Buffer.from(sig).toString("hex");
}
