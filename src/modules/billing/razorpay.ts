import { hmacHex, sameHex } from "../../crypto/hash.ts";
import type { Config } from "../../config.ts";
import { AppError } from "../../errors.ts";

/** An order as Razorpay's Orders API answers it (the fields Parley reads). */
export interface RazorpayOrder {
  id: string;
  entity: "order";
  amount: number;
  currency: string;
  receipt: string;
  status: string;
  notes?: Record<string, string>;
}

export interface OrderRequest {
  /** paise */
  amount: number;
  currency: "INR";
  receipt: string;
  notes: Record<string, string>;
}

const TIMEOUT_MS = 10_000;

/** Whether checkout through Razorpay is configured (else billing is manual). */
export function razorpayConfigured(config: Config): config is Config & { razorpayKeyId: string; razorpayKeySecret: string } {
  return !!config.razorpayKeyId && !!config.razorpayKeySecret;
}

/** POST /v1/orders with HTTP basic auth (key id : key secret), plain fetch. */
export async function createRazorpayOrder(config: Config & { razorpayKeyId: string; razorpayKeySecret: string }, req: OrderRequest): Promise<RazorpayOrder> {
  const url = `${config.razorpayApiBase.replace(/\/+$/, "")}/v1/orders`;
  const auth = Buffer.from(`${config.razorpayKeyId}:${config.razorpayKeySecret}`).toString("base64");
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Basic ${auth}`, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(req),
      redirect: "error",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw providerError("Payment provider unreachable", err);
  }
  const body = (await res.json().catch(() => null)) as (RazorpayOrder & { error?: { description?: string } }) | null;
  if (!res.ok || !body || typeof body.id !== "string") {
    throw providerError(`Payment provider refused the order (${res.status}${body?.error?.description ? `: ${body.error.description}` : ""})`);
  }
  return body;
}

/** The API's 502 code (docs/api.md) covers provider errors; its name speaks of the chat network only. */
function providerError(message: string, cause?: unknown): AppError {
  return new AppError("CHATAPP_UNAVAILABLE", message, { cause });
}


/** Checkout's payment signature: HMAC-SHA256(`order_id|payment_id`, key secret). */
export function paymentSignatureValid(keySecret: string, orderId: string, paymentId: string, signature: string): boolean {
  return sameHex(hmacHex(keySecret, `${orderId}|${paymentId}`), signature);
}
