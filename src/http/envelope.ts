import { z } from "zod";
import { lazySchema } from "./lazy-schema.ts";

/**
 * The rest of a call whose data must not be a promise: an envelope of an un-awaited store call
 * is a type error (a check on the rest parameters, not on `data`'s type, keeps unions inferred whole).
 */
type Settled<T, Rest extends unknown[]> = [T] extends [PromiseLike<unknown>] ? ["await the store call first"] : Rest;

/** Success envelope of the spec: `{ success: true, data?, message? }`. */
export function ok<T>(data?: T, ...[message]: Settled<T, [message?: string]>): { success: true; data?: T; message?: string } {
  const body: { success: true; data?: T; message?: string } = { success: true };
  if (data !== undefined) body.data = data;
  if (message !== undefined) body.message = message;
  return body;
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

/** Paginated success envelope with the spec's pagination object. */
export function paged<T>(data: T[], page: number, limit: number, total: number, ..._settled: Settled<T, []>) {
  const pagination: Pagination = { page, limit, total, totalPages: Math.ceil(total / limit) };
  return { success: true as const, data, pagination };
}

/** Query schema of every paginated list (docs/api.md): page >= 1, limit 1..100. */
export const pageQuery = lazySchema(() =>
  z.object({
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  }),
);

/** Failure envelope (docs/api.md). */
export function failureBody(code: string, message: string, requestId: string, errors?: Record<string, string>, data?: unknown) {
  const body: Record<string, unknown> = { success: false, code, message };
  if (errors && Object.keys(errors).length) body.errors = errors;
  if (data !== undefined) body.data = data;
  body.requestId = requestId;
  return body;
}
