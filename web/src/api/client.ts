import { refresh, signedOut, tokenStore } from "./tokens.ts";

export interface Pagination {
  page?: number;
  limit: number;
  total?: number;
  totalPages?: number;
  hasMore?: boolean;
  nextCursor?: string | null;
}

export interface Envelope<T> {
  success: boolean;
  data: T;
  message?: string;
  pagination?: Pagination;
}

/** A refusal from the API, with the envelope's code, field errors and Retry-After. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: Record<string, string> = {},
    readonly retryAfter: number | null = null,
    readonly data: unknown = null,
  ) {
    super(message);
  }
}

type Body = unknown;

async function once(method: string, path: string, body: Body, headers: Record<string, string>): Promise<Response> {
  const h: Record<string, string> = { ...headers };
  const token = tokenStore.get().access;
  if (token) h.authorization = `Bearer ${token}`;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    h["content-type"] = "application/json";
  }
  return fetch(path, { method, headers: h, body: payload });
}

/** A raw response, refreshing the access token once on 401. */
export async function request(method: string, path: string, body?: Body, headers: Record<string, string> = {}): Promise<Response> {
  let res = await once(method, path, body, headers);
  if (res.status === 401 && tokenStore.get().access && !path.startsWith("/api/auth/login")) {
    if (await refresh()) res = await once(method, path, body, headers);
    else signedOut("Your sign-in ended. Sign in again.");
  }
  return res;
}

let lastRoleRefresh = 0;

/** Calls the public API; resolves the envelope on success, throws ApiError otherwise. */
export async function api<T = unknown>(method: string, path: string, body?: Body, headers?: Record<string, string>): Promise<Envelope<T>> {
  let res: Response;
  try {
    res = await request(method, path, body, headers);
  } catch {
    throw new ApiError(0, "NETWORK", "The server could not be reached. Check the connection and try again.");
  }
  const text = await res.text();
  let env: (Envelope<T> & { code?: string; errors?: Record<string, string> }) | null = null;
  try {
    env = text ? JSON.parse(text) : null;
  } catch {
    env = null;
  }
  if (res.ok && env?.success !== false) return (env ?? { success: true, data: undefined as T }) as Envelope<T>;
  // the API reads the member's role fresh; the token's claim may be older (a demoted member).
  // A new token carries the current role, and the screens then stop offering what it lacks.
  // At most one such refresh in 30 s, so a screen that keeps being refused does not spin.
  if (res.status === 403 && env?.code === "FORBIDDEN" && tokenStore.get().access && Date.now() - lastRoleRefresh > 30_000) {
    lastRoleRefresh = Date.now();
    void refresh();
  }
  const retry = Number(res.headers.get("retry-after"));
  throw new ApiError(
    res.status,
    env?.code ?? "INTERNAL_ERROR",
    env?.message ?? `The server answered ${res.status}`,
    env?.errors ?? {},
    Number.isFinite(retry) && retry > 0 ? retry : null,
    (env as { data?: unknown } | null)?.data ?? null,
  );
}

export const get = <T,>(path: string) => api<T>("GET", path).then((e) => e.data);
export const post = <T,>(path: string, body?: Body) => api<T>("POST", path, body ?? {}).then((e) => e.data);
export const put = <T,>(path: string, body?: Body) => api<T>("PUT", path, body ?? {}).then((e) => e.data);
export const patch = <T,>(path: string, body?: Body) => api<T>("PATCH", path, body ?? {}).then((e) => e.data);
export const del = <T,>(path: string) => api<T>("DELETE", path).then((e) => e.data);

/** Builds a query string, leaving out empty values; arrays repeat the key. */
export function qs(params: Record<string, string | number | boolean | string[] | undefined | null>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === "") continue;
    if (Array.isArray(v)) for (const x of v) u.append(k, x);
    else u.set(k, String(v));
  }
  const s = u.toString();
  return s ? `?${s}` : "";
}
