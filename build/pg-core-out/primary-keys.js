// What drizzle's relations use of drizzle-orm/pg-core/primary-keys.js: `is(value, PrimaryKeyBuilder)`,
// which (after `instanceof`) compares the entity kind of the value's classes with this class's,
// so a class of the same kind answers as the real one does (see build/pg-core-out.ts)
export class PrimaryKeyBuilder {
  static [Symbol.for("drizzle:entityKind")] = "PgPrimaryKeyBuilder";
}
