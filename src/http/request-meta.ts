import { RequestSlot } from "./request-slot.ts";

/** Per-request facts the hooks share, keyed by the Request object. */
export interface RequestMeta {
  id: string;
  start: number;
  status?: number;
}

const metas = new RequestSlot<RequestMeta>("meta");
const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Starts a request's meta; an incoming X-Request-Id is kept when it is sane. */
export function beginRequest(request: Request): RequestMeta {
  const incoming = request.headers.get("x-request-id");
  const meta: RequestMeta = { id: incoming && VALID_ID.test(incoming) ? incoming : Bun.randomUUIDv7(), start: performance.now() };
  metas.set(request, meta);
  return meta;
}

/** The meta of a request (created on the spot when a hook runs before onRequest). */
export function requestMeta(request: Request): RequestMeta {
  return metas.get(request) ?? beginRequest(request);
}
