import type { BunPlugin } from "bun";
import { join } from "node:path";

/**
 * Keeps drizzle's PostgreSQL core out of what every start evaluates. drizzle's SQL core
 * (`sql/sql.js`) imports `isPgEnum` from `pg-core/columns/enum.js`, and its relations
 * (`relations.js`) `PrimaryKeyBuilder` from `pg-core/primary-keys.js`; through them the bundle
 * put ≈40 of pg-core's modules (every PostgreSQL column type, ≈130 classes with static fields)
 * in the chunk every command loads and evaluates, on SQLite too. These two imports, and only
 * from those two importers, resolve to files that answer the same (`build/pg-core-out/`, held to
 * drizzle's by test/build/pg-core-out.test.ts); pg-core itself is then loaded where the
 * PostgreSQL store requires it.
 */
export const pgCoreOut: BunPlugin = {
  name: "pg-core-out",
  setup(build) {
    build.onResolve({ filter: /pg-core\/(columns\/enum|primary-keys)\.js$/ }, (args) => {
      const from = args.importer.replaceAll("\\", "/");
      if (from.endsWith("drizzle-orm/sql/sql.js") && args.path === "../pg-core/columns/enum.js") return { path: join(import.meta.dir, "pg-core-out/enum.js") };
      if (from.endsWith("drizzle-orm/relations.js") && args.path === "./pg-core/primary-keys.js") return { path: join(import.meta.dir, "pg-core-out/primary-keys.js") };
      return undefined;
    });
  },
};
