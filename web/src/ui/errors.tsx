import { useEffect, useRef } from "react";
import { ApiError } from "../api/client.ts";
import { tokenStore } from "../api/tokens.ts";

/** The sentence shown for a refusal: 401, 403, 429 and 502 get their own (docs/dashboard.md). */
export function describeError(e: unknown): string {
  if (!(e instanceof ApiError)) return e instanceof Error ? e.message : "Something went wrong.";
  switch (e.status) {
    case 401:
      // signed out (log-in, second factor, sign-up screens): the API's own reason ("Invalid email
      // or password"); signed in, a 401 the refresh could not cure means the login is over
      return tokenStore.get().access ? "Your sign-in ended. Sign in again." : e.message;
    case 403:
      if (e.code === "LIMIT_EXCEEDED") return `Your plan's limit is reached: ${e.message}. See Billing to upgrade.`;
      if (e.code === "SUBSCRIPTION_INACTIVE") return `Your plan does not allow this: ${e.message}. See Billing.`;
      return `Your role (${tokenStore.get().claims?.role ?? "unknown"}) may not do this: ${e.message}. Ask an owner or admin of the workspace.`;
    case 429:
      return e.retryAfter
        ? `Too many attempts. Try again in ${e.retryAfter} second${e.retryAfter === 1 ? "" : "s"}.`
        : "Too many attempts. Wait a moment and try again.";
    case 502:
      // a refused connect or pairing says its own words (not the ones meant for sending)
      if (e.code !== "CHATAPP_UNAVAILABLE") return e.message;
      return `The session is not connected, so nothing could be sent (${e.message}). Connect it under Sessions and try again.`;
    default:
      return e.message;
  }
}

/** A form-level error (field errors are shown beside their fields, and the first one gets the focus). */
export function ErrorNote({ error }: { error: unknown }) {
  const ref = useRef<HTMLParagraphElement>(null);
  const fields = error instanceof ApiError ? Object.keys(error.errors) : [];
  useEffect(() => {
    if (!fields.length) return;
    const invalid = ref.current?.closest("form")?.querySelector<HTMLElement>("[aria-invalid='true']");
    invalid?.focus();
  }, [error]); // eslint-disable-line react-hooks/exhaustive-deps
  if (!error) return null;
  const text = describeError(error).replace(/\.?$/, ".");
  return (
    <p className="error" role="alert" ref={ref}>
      {text}
      {fields.length > 0 && error instanceof ApiError && error.status === 400 ? " Check the marked fields." : ""}
    </p>
  );
}

/**
 * The message the API gave for one field (dotted path), if any. An error on a part of the
 * field's value (`tags.0`, `filter.attributes.city`) belongs to that field too: the control
 * holds the whole list or map, and nothing else on the form would show it.
 */
export function fieldError(error: unknown, name: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.errors[name] !== undefined) return error.errors[name];
  const child = Object.keys(error.errors).find((k) => k.startsWith(`${name}.`));
  if (child === undefined) return undefined;
  const part = child.slice(name.length + 1);
  return `${error.errors[child]} (${/^\d+$/.test(part) ? `item ${Number(part) + 1}` : part || "an empty key"})`;
}
