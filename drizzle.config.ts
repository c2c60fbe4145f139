import { defineConfig } from "drizzle-kit";

// SQLite, the embedded engine: the tables are declared in the modules' table.ts files
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/**/table.ts",
  out: "./migrations/sqlite",
});
