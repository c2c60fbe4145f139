import { describe, expect, test } from "bun:test";
import { sendBody } from "../../../src/modules/messages/model.ts";
import { plainTextSend } from "../../../src/modules/messages/send-body-fast.ts";

// The plain text send's shortcut must answer exactly what the schema answers (the same value,
// the same keys in the same order: the Idempotency-Key's hash reads them), and leave every
// other body to the schema.

const U = "0193a1f4-6c2e-7d10-8a4b-3f5e2c1d9b7a";
const V = "0193a1f4-6c2e-7d10-8a4b-3f5e2c1d9b7b";
const validate = (v: unknown) => (sendBody as unknown as { "~standard": { validate(v: unknown): { value?: unknown; issues?: unknown } } })["~standard"].validate(v);

const sessions: Record<string, unknown>[] = [{ session_id: U }, { sessionId: U }, { session_id: U, sessionId: U }, { session_id: U, sessionId: V }, {}, { session_id: "nope" }, { sessionId: 7 }, { session_id: U.toUpperCase() }];
const tos: unknown[] = ["919812345678", "+91 98123-45678", "12345@lid", "12", "", undefined, 919812345678];
const types: unknown[] = [undefined, "text", "image", "reaction", "TEXT"];
const bodies: unknown[] = ["Hello", "  padded  ", "   ", "", "x".repeat(4096), "x".repeat(4097), "é".repeat(10), undefined, 5, null];
const extras: Record<string, unknown>[] = [{}, { mediaUrl: "https://example.com/a.png" }, { unknownField: 1 }, { replyTo: U }, { groupId: "1203@g.us" }, { sendAt: "2030-01-01T00:00:00Z" }];

function* cases(): Generator<Record<string, unknown>> {
  for (const s of sessions) for (const to of tos) for (const type of types) for (const body of bodies) for (const x of extras) {
    const o: Record<string, unknown> = { ...x, ...s };
    if (to !== undefined) o.to = to;
    if (type !== undefined) o.type = type;
    if (body !== undefined) o.body = body;
    yield o;
    // the same fields written in the reverse order
    yield Object.fromEntries(Object.entries(o).reverse());
  }
}

describe("the plain text send's shortcut", () => {
  test("answers exactly as the schema does, keys in the same order, or leaves the body to it", () => {
    let short = 0;
    let total = 0;
    for (const body of cases()) {
      total++;
      const bySchema = sendBody.safeParse(body); // first: the recipient field remembers the numbers it accepted
      const fast = plainTextSend(body);
      if (fast === undefined) continue;
      short++;
      expect(bySchema.success).toBe(true);
      expect(JSON.stringify(fast)).toBe(JSON.stringify(bySchema.data));
      expect(validate(body)).toEqual({ value: bySchema.data });
    }
    expect(short).toBeGreaterThan(50);
    expect(short).toBeLessThan(total);
  });

  test("a body the schema refuses still gets the schema's issues", () => {
    const r = validate({ session_id: U, to: "919812345678", type: "text", body: "   " });
    expect(r.issues).toBeDefined();
    expect(JSON.stringify(r.issues)).toContain("body");
  });

  test("never answers for anything but a plain object", () => {
    for (const v of [null, undefined, "text", 3, [], [{ session_id: U, to: "12345@lid", body: "x" }], Object.create({ session_id: U, to: "12345@lid", body: "x" })]) {
      expect(plainTextSend(v)).toBeUndefined();
    }
  });

  test("a number the schema has not seen yet goes through the schema (which remembers it)", () => {
    const body = { session_id: U, to: "919812345699", body: "hi" };
    expect(plainTextSend(body)).toBeUndefined();
    expect(sendBody.safeParse(body).success).toBe(true);
    expect(plainTextSend(body)).toEqual({ session_id: U, to: "919812345699", type: "text", body: "hi" });
  });
});
