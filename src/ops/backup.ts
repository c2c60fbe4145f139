import { Database } from "bun:sqlite";
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { bundledMigrationCount } from "../db/migrate.ts";
import { VERSION } from "../version.ts";

/** Data-dir entries that are never archived: the live database (copied consistently instead) and the running server's files. */
export const LIVE = new Set(["parley.db", "parley.db-wal", "parley.db-shm", "parley.db-journal", "parley.pid", "parley.url"]);
export const MANIFEST = "parley-backup.json";
export const DB_FILE = "parley.db";

/**
 * The layout of a backup, and so of what a restore accepts: these files at the top, `media/`
 * holding one folder per workspace of files, and `imports/` holding files. The data dir holds
 * nothing else Parley wrote; anything else in it is not Parley's and is not archived.
 */
export const BACKUP_TOP_FILES: ReadonlySet<string> = new Set([MANIFEST, DB_FILE, "secrets.json", "sim-network.json", "sim-sent.jsonl", "wa-version.json"]);
export const BACKUP_TOP_DIRS: ReadonlySet<string> = new Set(["media", "imports"]);
/** A path segment of the layout: ids and file names Parley makes (no dot files, no `..`). */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/** Why a path (relative, `/`-separated) is not in a backup's layout, or null. `dir`: the entry is a directory. */
export function layoutProblem(path: string, dir: boolean): string | null {
  const rel = path.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  if (rel === "" || rel === ".") return dir ? null : "not a name a backup holds"; // the archive's root folder
  const parts = rel.split("/");
  if (!parts.every((p) => SEGMENT.test(p))) return "not a name a backup holds";
  const [top] = parts as [string];
  if (parts.length === 1) return (dir ? BACKUP_TOP_DIRS.has(top) : BACKUP_TOP_FILES.has(top)) ? null : "not part of a backup";
  if (top === "media" && ((parts.length === 2 && dir) || (parts.length === 3 && !dir))) return null;
  if (top === "imports" && parts.length === 2 && !dir) return null;
  return "not part of a backup";
}

export interface BackupManifest {
  format: 1;
  version: string;
  createdAt: string;
  /** migrations applied in the copy, and those this build ships */
  migrations: number;
  buildMigrations: number;
  integrity: "ok";
  files: string[];
}

export class BackupError extends Error {}

/**
 * Backup and restore copy a SQLite data dir. On PostgreSQL the database server holds every row
 * (and the secrets), and its own tools back it up: both commands refuse, before doing anything.
 */
export function assertSqliteDataDir(config: { databaseUrl?: string }, command: "backup" | "restore"): void {
  if (!config.databaseUrl) return;
  throw new BackupError(
    `the database is PostgreSQL (PARLEY_DATABASE_URL): back it up and restore it with pg_dump/pg_restore or your provider's snapshots; parley ${command} handles only a SQLite data dir, and ${command === "backup" ? "backed up" : "restored"} nothing`,
  );
}

/** The database file's `PRAGMA integrity_check` answer: "ok", or the first problems it lists. */
export function integrityCheck(path: string): string {
  let db: Database | null = null;
  try {
    db = new Database(path, { readonly: true });
    const rows = db.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).slice(0, 5).join("; ");
  } catch (err) {
    // a file too damaged to check ("file is not a database", "database disk image is malformed")
    return (err as Error).message;
  } finally {
    db?.close();
  }
}

/**
 * A consistent copy of `<dataDir>/parley.db` at `dest`, taken while a server may be writing:
 * `VACUUM INTO` reads one snapshot inside a read transaction (WAL lets the server go on
 * committing meanwhile) and writes a compact, self-contained file with no WAL of its own.
 */
export function snapshotDatabase(dataDir: string, dest: string): void {
  const src = join(dataDir, DB_FILE);
  if (!existsSync(src)) throw new BackupError(`no database in ${dataDir}`);
  const db = new Database(src, { readonly: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.query("VACUUM INTO ?").run(dest);
  } finally {
    db.close();
  }
}

/** What else the data dir needs besides the database: secrets, media, network state (relative paths). */
function sideFiles(dataDir: string, target: string): string[] {
  // never the archive being written, nor the scratch files of one in progress, nor the file
  // system's lost+found (a data dir on its own disk has one, root's, mode 0700: unreadable)
  // only the backup's layout (what a restore accepts): a file the operator left here is not Parley's
  return readdirSync(dataDir).filter(
    (name) =>
      !LIVE.has(name) &&
      (BACKUP_TOP_FILES.has(name) || BACKUP_TOP_DIRS.has(name)) &&
      !name.startsWith(".parley-") &&
      !/\.tmp$|\.\d+$/.test(name) &&
      resolve(dataDir, name) !== target,
  );
}

/**
 * Refuses, before any work, a target the archive cannot be renamed to (a directory, a folder
 * that does not exist) and one inside a folder of the data dir (media: the archive would be
 * read into itself). Beside the database, at the data dir's top level, is allowed and skipped.
 */
function checkTarget(dataDir: string, target: string): void {
  if (existsSync(target) && statSync(target).isDirectory()) throw new BackupError(`${target} is a directory: give the backup a file name, e.g. ${join(target, "parley-backup.tar.gz")}`);
  if (!existsSync(dirname(target))) throw new BackupError(`no directory ${dirname(target)} for the backup`);
  const inside = relative(resolve(dataDir), target);
  if (inside.includes(sep) && !inside.startsWith("..")) throw new BackupError(`${target} is inside the data dir's ${inside.split(sep)[0]}/, which the backup archives: write it elsewhere`);
}

/**
 * The media files the database copy refers to (`media/<workspace>/<id>`), those still on disk.
 * Only these: a file being written now belongs to a row not yet committed (tar fails on a file
 * that grows while it reads it), and a file whose change was refused is deleted (tar fails on
 * one that vanishes after it listed the folder). Neither is in the copy, so neither is needed.
 */
function referencedMedia(copy: Database, dataDir: string): string[] {
  const rows = copy.query("SELECT workspace_id AS w, id FROM media").all() as { w: string; id: string }[];
  return rows.map((r) => `media/${r.w}/${r.id}`).filter((p) => existsSync(join(dataDir, p)));
}

/**
 * `parley backup <file>`: a gzipped tar of a consistent database copy (checked with
 * integrity_check), the secrets and media beside it, and a manifest. Safe while the server runs.
 * The archive is written next to `file` and renamed into place, so a failed backup leaves no
 * half file under the name.
 */
export async function backup(dataDir: string, file: string): Promise<BackupManifest> {
  const target = resolve(file);
  checkTarget(dataDir, target);
  const work = mkdtempSync(join(dirname(target), ".parley-backup-"));
  try {
    const copy = join(work, DB_FILE);
    snapshotDatabase(dataDir, copy);
    const integrity = integrityCheck(copy);
    if (integrity !== "ok") throw new BackupError(`the database copy failed its integrity check: ${integrity}`);
    const check = new Database(copy, { readonly: true });
    const migrations = (check.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
    const mediaFiles = referencedMedia(check, dataDir);
    check.close();
    // after the snapshot: every file a row in it refers to was written before that row committed
    const files = sideFiles(dataDir, target);
    const manifest: BackupManifest = {
      format: 1,
      version: VERSION,
      createdAt: new Date().toISOString(),
      migrations,
      buildMigrations: bundledMigrationCount(),
      integrity: "ok",
      files: [DB_FILE, ...files],
    };
    writeFileSync(join(work, MANIFEST), JSON.stringify(manifest, null, 2) + "\n");
    const partial = join(work, basename(target) + ".partial");
    // one root for the archive. Media files are written once and never changed: linked. Anything
    // else (secrets, the sim network's append-only logs) is copied first, since tar refuses a file
    // that grows while it reads it.
    for (const f of files) {
      if (f === "media") symlinkSync(resolve(dataDir, f), join(work, f));
      else cpSync(join(dataDir, f), join(work, f), { recursive: true, preserveTimestamps: true });
    }
    const entries = [MANIFEST, DB_FILE, ...files.filter((f) => f !== "media"), ...mediaFiles];
    // tar loads with the backup command, not with every start of the binary (issue 13)
    const { create } = await import("tar");
    await create({ gzip: true, file: partial, cwd: work, portable: true, follow: true }, entries);
    chmodSync(partial, 0o600); // it holds the secrets
    renameSync(partial, target);
    return manifest;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
