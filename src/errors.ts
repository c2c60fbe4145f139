/** THE registry of error codes: each code has exactly one HTTP status (docs/api.md). */
export const ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, message: "Request validation failed" },
  UNAUTHORIZED: { status: 401, message: "Missing or invalid credentials" },
  FORBIDDEN: { status: 403, message: "You do not have permission to do this" },
  SUBSCRIPTION_INACTIVE: { status: 403, message: "This action is not allowed on the current plan" },
  LIMIT_EXCEEDED: { status: 403, message: "Plan limit reached" },
  NOT_FOUND: { status: 404, message: "Resource not found" },
  METHOD_NOT_ALLOWED: { status: 405, message: "Method not allowed on this path" },
  CONFLICT: { status: 409, message: "Conflict with the current state" },
  RATE_LIMITED: { status: 429, message: "Too many requests; retry after backoff" },
  INTERNAL_ERROR: { status: 500, message: "Unexpected server error" },
  CHATAPP_UNAVAILABLE: { status: 502, message: "Session disconnected or provider error" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Field path (dotted) to message. */
export type FieldErrors = Record<string, string>;

/** The one error type services throw; the HTTP layer maps it to the envelope. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldErrors;
  /** Extra data carried in the failure envelope (e.g. resume data on 403). */
  readonly data?: unknown;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    opts: { errors?: FieldErrors; data?: unknown; headers?: Record<string, string>; cause?: unknown; status?: number } = {},
  ) {
    super(message ?? ERROR_CODES[code].message, { cause: opts.cause });
    this.name = "AppError";
    this.code = code;
    // a status other than the code's own is used only where HTTP demands it (413, 503)
    this.status = opts.status ?? ERROR_CODES[code].status;
    this.errors = opts.errors;
    this.data = opts.data;
    this.headers = opts.headers;
  }
}

/** Factories so call sites read as intent. */
export const errors = {
  validation: (errs: FieldErrors, message = "Request validation failed") =>
    new AppError("VALIDATION_ERROR", message, { errors: errs }),
  unauthorized: (message?: string) => new AppError("UNAUTHORIZED", message),
  forbidden: (message?: string, data?: unknown) => new AppError("FORBIDDEN", message, { data }),
  notFound: (what = "Resource") => new AppError("NOT_FOUND", `${what} not found`),
  conflict: (message: string) => new AppError("CONFLICT", message),
  limitExceeded: (message: string) => new AppError("LIMIT_EXCEEDED", message),
  subscriptionInactive: (message?: string) => new AppError("SUBSCRIPTION_INACTIVE", message),
  rateLimited: (retryAfterSeconds: number, message?: string) =>
    new AppError("RATE_LIMITED", message, { headers: { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) } }),
  chatappUnavailable: (message?: string) => new AppError("CHATAPP_UNAVAILABLE", message),
  /** The API has no code of its own for 413 (docs/api.md): the body failed validation by its size. */
  tooLarge: (limitBytes: number) =>
    new AppError("VALIDATION_ERROR", `Request body exceeds ${limitBytes} bytes`, {
      status: 413,
      errors: { body: `must be at most ${limitBytes} bytes` },
    }),
};
