import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertSqliteDataDir, BackupError } from "../../src/ops/backup.ts";
import { BUN, ROOT } from "../helpers/process.ts";

// On PostgreSQL the database server holds every row and the secrets: `parley backup` and
// `parley restore` point at pg_dump or the provider's snapshots and touch nothing, before
// connecting anywhere (the URL below names no server).

const URL = "postgres://parley@127.0.0.1:1/nowhere";

test("the check refuses only a PostgreSQL configuration, naming pg_dump and snapshots", () => {
  expect(() => assertSqliteDataDir({}, "backup")).not.toThrow();
  for (const command of ["backup", "restore"] as const) {
    let err: unknown;
    try {
      assertSqliteDataDir({ databaseUrl: URL }, command);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BackupError);
    expect((err as Error).message).toContain("pg_dump");
    expect((err as Error).message).toContain("snapshots");
    expect((err as Error).message).toContain(`parley ${command}`);
  }
});

test("parley backup and restore on PostgreSQL: one line of advice, exit 1, nothing written", () => {
  const dir = mkdtempSync(join(tmpdir(), "parley-pg-ops-"));
  const dataDir = join(dir, "data");
  const archive = join(dir, "backup.tar.gz");
  const env = { ...process.env, PARLEY_DATABASE_URL: URL };
  const run = (...args: string[]) => Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), ...args, "-d", dataDir], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env });
  const backup = run("backup", archive);
  const backupErr = backup.stderr.toString().trim();
  expect({ code: backup.exitCode, lines: backupErr.split("\n").length, advice: backupErr.includes("pg_dump") }).toEqual({ code: 1, lines: 1, advice: true });
  expect(readdirSync(dir)).toEqual([]); // no archive, no scratch, no data dir
  writeFileSync(archive, "not looked at");
  const restore = run("restore", archive);
  const restoreErr = restore.stderr.toString().trim();
  expect({ code: restore.exitCode, lines: restoreErr.split("\n").length, advice: restoreErr.includes("pg_dump") }).toEqual({ code: 1, lines: 1, advice: true });
  expect(readdirSync(dir)).toEqual(["backup.tar.gz"]);
});
