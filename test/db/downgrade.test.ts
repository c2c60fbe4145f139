import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundledMigrationCount, migrate, NewerDatabaseError } from "../../src/db/migrate.ts";
import { openPostgresStore } from "../../src/db/postgres.ts";
import { openSqliteFile as openDb, openTestStore } from "../helpers/store.ts";
import { emptyPostgres, testEngine } from "../helpers/postgres.ts";
import { BUN, ROOT } from "../helpers/process.ts";

/** A data dir whose database a newer build migrated: one migration row this build does not ship. */
async function newerDataDir(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "parley-newer-"));
  const o = openDb(join(dir, "parley.db"));
  await migrate(o.db);
  const future = Date.now() + 86_400_000;
  o.sqlite.query("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-newer-build', ?)").run(future);
  await o.close();
  return dir;
}

test(`a database migrated by a newer build is refused before anything runs on it (${testEngine})`, async () => {
  const o = await openTestStore();
  await o.db.prepare("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-newer-build', ?)").run(Date.now() + 86_400_000);
  await expect(migrate(o.db)).rejects.toThrow(NewerDatabaseError);
  await expect(migrate(o.db)).rejects.toThrow(/newer Parley build \(1 migration\(s\) this build does not have/);
  await o.close();
  // the same build's own database is fine, again and again
  const ok = await openTestStore();
  expect(await migrate(ok.db)).toBe(0);
  expect(await migrate(ok.db)).toBe(0);
  await ok.close();
});

test("serve and migrate refuse it with one line and exit code 2", async () => {
  const dir = await newerDataDir();
  for (const args of [["serve", "--port", "0", "--network", "sim"], ["migrate"]]) {
    const p = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), ...args, "--data-dir", dir], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, PARLEY_LOG_FORMAT: "json" } });
    const err = p.stderr.toString().trim();
    expect({ args, code: p.exitCode }).toEqual({ args, code: 2 });
    expect(err.split("\n")).toHaveLength(1);
    expect(err).toContain("migrated by a newer Parley build");
  }
});

test.skipIf(testEngine !== "postgres")("PostgreSQL only: the bookkeeping is looked up in the connection's own schema: a table of its name in another schema, even one a newer build filled, does not count", async () => {
  const pg = await emptyPostgres();
  const { db } = openPostgresStore(pg.url, { max: 1 });
  try {
    await db.exec("CREATE SCHEMA other");
    await db.exec("CREATE TABLE other.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)");
    await db.prepare("INSERT INTO other.__drizzle_migrations (hash, created_at) VALUES ('from-a-newer-build', ?)").run(Date.now() + 86_400_000);
    expect(await migrate(db)).toBe(bundledMigrationCount("postgres"));
    expect(await migrate(db)).toBe(0);
    expect(await db.prepare<{ n: number }>("SELECT count(*) AS n FROM public.__drizzle_migrations").get()).toEqual({ n: bundledMigrationCount("postgres") });
  } finally {
    await db.close();
    await pg.drop();
  }
});
