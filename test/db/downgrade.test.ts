import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, NewerDatabaseError } from "../../src/db/migrate.ts";
import { openDb } from "../../src/db/open.ts";
import { BUN, ROOT } from "../helpers/process.ts";

/** A data dir whose database a newer build migrated: one migration row this build does not ship. */
function newerDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "parley-newer-"));
  const o = openDb(join(dir, "parley.db"));
  migrate(o.db);
  const future = Date.now() + 86_400_000;
  o.sqlite.query("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-newer-build', ?)").run(future);
  o.close();
  return dir;
}

test("a database migrated by a newer build is refused before anything runs on it", () => {
  const dir = newerDataDir();
  const o = openDb(join(dir, "parley.db"));
  expect(() => migrate(o.db)).toThrow(NewerDatabaseError);
  expect(() => migrate(o.db)).toThrow(/newer Parley build \(1 migration\(s\) this build does not have/);
  o.close();
  // the same build's own database is fine, again and again
  const ok = openDb(":memory:");
  migrate(ok.db);
  expect(migrate(ok.db)).toBe(0);
  ok.close();
});

test("serve and migrate refuse it with one line and exit code 2", () => {
  const dir = newerDataDir();
  for (const args of [["serve", "--port", "0", "--network", "sim"], ["migrate"]]) {
    const p = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), ...args, "--data-dir", dir], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, PARLEY_LOG_FORMAT: "json" } });
    const err = p.stderr.toString().trim();
    expect({ args, code: p.exitCode }).toEqual({ args, code: 2 });
    expect(err.split("\n")).toHaveLength(1);
    expect(err).toContain("migrated by a newer Parley build");
  }
});
