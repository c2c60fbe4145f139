// drizzle's `isPgEnum` (drizzle-orm/pg-core/columns/enum.js), the one name drizzle's SQL core
// imports from there: the same check of the same global symbol, without the PostgreSQL column
// classes that module imports (see build/pg-core-out.ts)
const isPgEnumSym = Symbol.for("drizzle:isPgEnum");
export function isPgEnum(obj) {
  return !!obj && typeof obj === "function" && isPgEnumSym in obj && obj[isPgEnumSym] === true;
}
