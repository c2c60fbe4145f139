/**
 * `npm test`: the whole suite through `bun test`, then one line that says which database
 * engines it covered and how to cover the other. The exit code is bun's.
 */
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const proc = Bun.spawn([process.execPath, "test", "--timeout", "30000", ...args], {
  stdio: ["inherit", "inherit", "inherit"],
  env: { ...process.env, BUN_RUNTIME_TRANSPILER_CACHE_PATH: transpilerCacheDir() },
});
const code = await proc.exited;
const url = process.env.PARLEY_TEST_DATABASE_URL;
if (url) {
  let where = "postgres";
  try {
    const u = new URL(url);
    where = `${u.hostname}:${u.port || 5432}`;
  } catch {
    // shown as given below
  }
  console.log(`\nengines: PostgreSQL (${where}, a database per test app) and SQLite for the tests of SQLite's own machinery; the rest of the suite on SQLite: run npm test without PARLEY_TEST_DATABASE_URL`);
} else {
  console.log(
    "\nengines: SQLite only. PostgreSQL was not covered: set PARLEY_TEST_DATABASE_URL to an admin URL of a PostgreSQL 14+ server " +
      "(e.g. postgres://postgres@127.0.0.1:5432/postgres) and run npm test again, or run `bash .ci/run`, which starts a private one",
  );
}
process.exit(code);

/**
 * Bun keeps the transpiled form of large source files in a cache keyed by the file's own text.
 * src/db/migrate.ts inlines the migrations at transpile time (a macro), so after a migration is
 * added its text is unchanged and the cache would hand the tests (and every CLI they spawn) the
 * old migrations. The suite's cache is therefore one per state of migrations/: a new or edited
 * migration starts a fresh one.
 */
function transpilerCacheDir(): string {
  const root = join(import.meta.dir, "..", "migrations");
  const hash = new Bun.CryptoHasher("sha256");
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else hash.update(path.slice(root.length)).update(readFileSync(path));
    }
  };
  walk(root);
  return join(tmpdir(), `parley-transpiler-${hash.digest("hex").slice(0, 16)}`);
}
