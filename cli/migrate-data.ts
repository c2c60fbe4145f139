import { writeOut, writeErr } from "../src/node/tty.ts";
import type { Command } from "commander";
import { NewerDatabaseError } from "../src/db/migrate.ts";
import { describeStore } from "../src/db/open.ts";
// loaded when the command runs: it brings PostgreSQL's client and every table's PostgreSQL twin,
// which `parley serve` on SQLite has no use for (memory and start-up time)
import type { CopiedTable, MigrateDataReport } from "../src/ops/migrate-data.ts";

const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;

/** `parley migrate-data --from <dataDir> --to postgres://…`: moves an installation from SQLite to PostgreSQL. */
export function migrateDataCommand(program: Command): void {
  program
    .command("migrate-data")
    .description("copy a data dir's SQLite database (and its secrets) into an empty PostgreSQL database; the server must be stopped")
    .requiredOption("--from <dataDir>", "the data dir whose parley.db and secrets.json move")
    .requiredOption("--to <url>", "the empty PostgreSQL database, postgres://user:password@host:5432/name")
    .option("--batch <rows>", "rows per INSERT", "1000")
    .action(async (flags: { from: string; to: string; batch: string }) => {
      const batchRows = Number(flags.batch);
      if (!POSTGRES_URL.test(flags.to)) fail(`--to must be a postgres:// or postgresql:// URL`, 2);
      if (!Number.isInteger(batchRows) || batchRows < 1) fail(`--batch must be a positive whole number of rows`, 2);
      const out = (line: string) => void writeOut(line + "\n");
      out(`moving ${flags.from} to ${describeStore({ dataDir: flags.from, databaseUrl: flags.to })}, in one transaction`);
      let report: MigrateDataReport;
      const { migrateData, MigrateDataError } = await import("../src/ops/migrate-data.ts");
      try {
        report = await migrateData({ dataDir: flags.from, databaseUrl: flags.to, batchRows, onTable: (t) => out(tableLine(t)) });
      } catch (err) {
        if (err instanceof MigrateDataError) fail(err.message, err.exitCode);
        if (err instanceof NewerDatabaseError) fail(err.message, 2);
        fail(`migrate-data failed, and rolled back whatever it had copied: ${(err as Error).message}`, 1);
      }
      summary(report).forEach(out);
    });
}

function fail(message: string, code: 1 | 2): never {
  writeErr(`parley: ${message}\n`);
  process.exit(code);
}

function tableLine(t: CopiedTable): string {
  const extra = t.added ? ` (+${t.added} from secrets.json)` : "";
  return `  ${t.table.padEnd(24)} ${String(t.target).padStart(9)} row(s) in ${(t.ms / 1000).toFixed(1)} s${extra}`;
}

const thousands = (n: number) => Math.round(n).toLocaleString("en-US");

function summary(r: MigrateDataReport): string[] {
  const lines: string[] = [];
  const seconds = r.ms / 1000;
  lines.push(
    `verified: the row counts of all ${r.tables.length} tables are equal in ${r.dataDir}/parley.db and ${r.target}; ` +
      `${thousands(r.rows)} row(s) in ${seconds.toFixed(1)} s (${thousands(r.rows / Math.max(seconds, 0.001))} rows/s)`,
  );
  if (r.sourceMigrations) lines.push(`the SQLite file was older than this build: ${r.sourceMigrations} migration(s) applied to it first`);
  if (r.targetMigrations) lines.push(`PostgreSQL: ${r.targetMigrations} migration(s) applied`);
  if (r.cleared.length) lines.push(`replaced what an earlier start left in the target: ${r.cleared.map((c) => `${c.table} ${c.rows}`).join(", ")}`);
  lines.push(`secrets: jwtSecret and credentialKey of ${r.dataDir}/secrets.json are in instance_secrets: issued tokens and sealed credentials keep working`);
  if (r.collation !== "C" && r.collation !== "POSIX") {
    lines.push(`warning: the database's LC_COLLATE is ${r.collation || "unknown"}, not C: text sorts differently from SQLite (create it with LC_COLLATE 'C')`);
  }
  lines.push("", "next:");
  lines.push(`  - start Parley on PostgreSQL: parley serve --database-url '${r.target}' --data-dir ${r.dataDir}`);
  lines.push(`    (the URL with its password, or PARLEY_DATABASE_URL); every node of a cluster uses the same one`);
  for (const d of r.stayOnDisk) {
    lines.push(`  - ${d.path} (${d.files} file(s)) stays on disk, the database does not hold it: every node must reach it at <its data dir>/${d.path.split("/").at(-1)} (the same data dir, or a shared volume mounted there)`);
  }
  lines.push(`  - ${r.dataDir}/parley.db is no longer used; keep it until you are satisfied, and never start a server on it without --database-url again (the two would part ways)`);
  lines.push(`  - back up with pg_dump or your provider's snapshots: parley backup handles only a SQLite data dir`);
  return lines;
}
