import { defineConfig } from "drizzle-kit";

// PostgreSQL: the same tables, converted by src/db/pg-schema.ts
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/schema/schema-tables.ts",
  out: "./migrations/postgres",
});
