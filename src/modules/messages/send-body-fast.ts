import { regexes } from "zod";
import { knownRecipient } from "./recipient.ts";

// The send body's schema (model.ts) has grown to eighteen fields, a refinement and a transform,
// and parsing it was a tenth of an accepted text send's CPU, nearly all of it spent on fields
// the body does not have. Most sends are the plain text send: this answers exactly what the
// schema would for that shape, and hands anything else to the schema.

const UUID = regexes.uuid();
const FIELDS = new Set(["session_id", "sessionId", "to", "type", "body"]);

/**
 * The schema's output for a plain text send (`session_id` or `sessionId`, `to` already seen by
 * the schema or a LID address, `type` "text" or absent, a non-blank `body` of at most 4,096
 * characters, nothing else), with its keys in the schema's order; undefined for any other body,
 * which the schema then parses (and refuses or accepts as always).
 */
export function plainTextSend(v: unknown): Record<string, string> | undefined {
  if (typeof v !== "object" || v === null || Object.getPrototypeOf(v) !== Object.prototype) return undefined;
  const o = v as Record<string, unknown>;
  for (const k in o) if (!FIELDS.has(k) || !Object.hasOwn(o, k)) return undefined;
  const { session_id: a, sessionId: b, to, type, body } = o;
  if (type !== undefined && type !== "text") return undefined;
  if (typeof body !== "string" || body.length > 4096 || body.trim() === "") return undefined;
  if (typeof to !== "string") return undefined;
  if (a !== undefined && (typeof a !== "string" || !UUID.test(a))) return undefined;
  if (b !== undefined && (typeof b !== "string" || !UUID.test(b))) return undefined;
  if (a === undefined && b === undefined) return undefined;
  if (a !== undefined && b !== undefined && a !== b) return undefined;
  const recipient = knownRecipient(to);
  if (recipient === undefined) return undefined;
  // the schema's keys in its order, then the transform's: session_id last when only sessionId was given
  return a !== undefined
    ? { session_id: a, to: recipient, type: "text", body }
    : { to: recipient, type: "text", body, session_id: b as string };
}

/** Wraps a schema's Standard Schema validator (what Elysia calls) with the plain text send's answer. */
export function withPlainTextSend<S extends { "~standard": { validate(v: unknown): unknown } }>(schema: S): S {
  const std = schema["~standard"];
  const validate = std.validate.bind(std);
  schema["~standard"] = { ...std, validate: (v: unknown) => {
    const value = plainTextSend(v);
    return value === undefined ? validate(v) : { value };
  } } as S["~standard"];
  return schema;
}
