/**
 * `npm test`: the whole suite through `bun test`, then one line that says which database
 * engines it covered and how to cover the other. The exit code is bun's.
 */
const args = process.argv.slice(2);
const proc = Bun.spawn([process.execPath, "test", "--timeout", "30000", ...args], { stdio: ["inherit", "inherit", "inherit"] });
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

export {};
