import { expect, test } from "bun:test";
import { z } from "zod";
import { lazySchema, resolveLazy } from "../../src/http/lazy-schema.ts";

test("a lazy schema is built at its first use, once, and validates as the schema would", () => {
  let builds = 0;
  const body = lazySchema(() => {
    builds++;
    return z.object({ name: z.string().min(2), n: z.coerce.number().int().default(1) });
  });
  expect(builds).toBe(0);
  expect(body.parse({ name: "ab" })).toEqual({ name: "ab", n: 1 });
  expect(body.safeParse({ name: "a" }).success).toBe(false);
  // Elysia's path: the Standard Schema interface
  const out = body["~standard"].validate({ name: "x" }) as { issues?: { path: PropertyKey[] }[] };
  expect(out.issues?.[0]?.path).toEqual(["name"]);
  expect("~standard" in body).toBe(true);
  expect(body instanceof z.ZodObject).toBe(true);
  expect(Object.keys(body.shape)).toEqual(["name", "n"]);
  expect(builds).toBe(1);
});

test("methods of a lazy schema make ordinary schemas around the real one, not around the stand-in", () => {
  const inner = lazySchema(() => z.string().trim());
  const opt = inner.optional();
  expect((opt._zod.def as unknown as { innerType: unknown }).innerType).not.toBe(inner);
  expect((opt._zod.def as unknown as { innerType: unknown }).innerType).toBe(resolveLazy(inner));
  expect(opt.parse(undefined)).toBeUndefined();
  expect(opt.parse("  a ")).toBe("a");
});

test("stand-ins put inside other schemas are swapped for their schemas: JSON Schema conversion keys by identity", () => {
  // a pipe (preprocess) is one of the kinds whose conversion looks itself up by identity
  const count = lazySchema(() => z.preprocess((v) => Number(v), z.number().int()));
  const tags = lazySchema(() => z.array(z.string()).max(3));
  const eager = z.object({ count, tags, nested: z.object({ again: count }) });
  // built outside lazySchema: still holds the stand-ins until resolved
  expect(eager.shape.count).toBe(count);
  const json = z.toJSONSchema(resolveLazy(eager), { unrepresentable: "any" }) as { properties: Record<string, unknown> };
  expect(eager.shape.count).toBe(resolveLazy(count));
  expect(json.properties.tags).toEqual({ type: "array", maxItems: 3, items: { type: "string" } });
  expect(Object.keys(json.properties)).toEqual(["count", "tags", "nested"]);
  // a lazy schema resolves its own tree when it is built
  const outer = lazySchema(() => z.object({ c: count }));
  expect((resolveLazy(outer) as z.ZodObject).shape.c).toBe(resolveLazy(count));
  expect(outer.parse({ c: "4" })).toEqual({ c: 4 });
});

test("resolveLazy leaves a schema without stand-ins as it is", () => {
  const s = z.object({ a: z.string(), b: z.array(z.number()).optional() });
  expect(resolveLazy(s)).toBe(s);
  expect(z.toJSONSchema(resolveLazy(s))).toEqual(z.toJSONSchema(s));
});
