import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { is } from "drizzle-orm";
import { isPgEnum, pgEnum, primaryKey as pgPrimaryKey, PrimaryKeyBuilder } from "drizzle-orm/pg-core";
import { primaryKey as sqlitePrimaryKey } from "drizzle-orm/sqlite-core";

// build/pg-core-out.ts replaces two of drizzle's imports in the compiled binary: what replaces
// them must answer as drizzle's own, and the imports must still be the ones it matches
const ROOT = join(import.meta.dir, "../..");
const shimEnum = (await import(join(ROOT, "build/pg-core-out/enum.js"))) as { isPgEnum: (obj: unknown) => boolean };
const shimKeys = (await import(join(ROOT, "build/pg-core-out/primary-keys.js"))) as { PrimaryKeyBuilder: typeof PrimaryKeyBuilder };

describe("drizzle's PostgreSQL core out of the start (build/pg-core-out.ts)", () => {
  test("isPgEnum answers as drizzle's", () => {
    const mood = pgEnum("mood", ["sad", "ok"]);
    for (const value of [mood, () => {}, null, undefined, {}, "mood", Object.assign(() => {}, { [Symbol.for("drizzle:isPgEnum")]: false })]) {
      expect(shimEnum.isPgEnum(value)).toBe(isPgEnum(value));
    }
    expect(shimEnum.isPgEnum(mood)).toBe(true);
  });

  test("is(value, PrimaryKeyBuilder) answers as with drizzle's class", () => {
    const col = { name: "id" } as never;
    const values: unknown[] = [pgPrimaryKey({ columns: [col] }), sqlitePrimaryKey({ columns: [col] }), {}, null, new (class extends PrimaryKeyBuilder {})([], undefined)];
    for (const value of values) expect(is(value, shimKeys.PrimaryKeyBuilder)).toBe(is(value, PrimaryKeyBuilder));
    expect(is(values[0], shimKeys.PrimaryKeyBuilder)).toBe(true);
    expect(is(values[1], shimKeys.PrimaryKeyBuilder)).toBe(false);
  });

  test("drizzle still imports them from where the plugin looks", () => {
    const drizzle = join(ROOT, "node_modules/drizzle-orm");
    expect(readFileSync(join(drizzle, "sql/sql.js"), "utf8")).toContain('import { isPgEnum } from "../pg-core/columns/enum.js";');
    expect(readFileSync(join(drizzle, "relations.js"), "utf8")).toContain('import { PrimaryKeyBuilder } from "./pg-core/primary-keys.js";');
  });
});
