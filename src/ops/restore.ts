import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { extract, ReadEntry } from "tar";
import { dataDirHolder, lockDataDir } from "../db/lock.ts";
import { assertNotNewer } from "../db/migrate.ts";
import { openStore } from "../db/open.ts";
import { BackupError, DB_FILE, integrityCheck, layoutProblem, LIVE, MANIFEST, type BackupManifest } from "./backup.ts";

/** Entry types `parley backup` writes (it follows links): anything else comes from a tampered archive. */
const PLAIN = new Set(["File", "OldFile", "ContiguousFile", "Directory"]);

/**
 * Why an archive entry must not be restored, or null. Links could point a data-dir file
 * (secrets, media) elsewhere; a pid or URL file would block the server's start or send
 * operator commands (with a minted owner token) to another address; a WAL beside the
 * checked database would change it after the check.
 */
function refusal(path: string, entry: ReadEntry): string | null {
  if (!PLAIN.has(entry.type)) return `a ${entry.type}`;
  const top = path.replace(/^(\.\/)+/, "").split("/")[0] ?? "";
  if (LIVE.has(top) && top !== DB_FILE) return "a running server's file";
  return layoutProblem(path, entry.type === "Directory");
}

/**
 * What one archive may unpack to, from its own size: a backup's database and media compress
 * a few times at most (the database is a compact copy, media are compressed already), and each
 * file of a real backup costs the archive more than a few bytes. A gzip bomb (a gigabyte of
 * zeros in a few megabytes) or a hundred thousand empty files are refused before they fill
 * the disk. A floor keeps small backups of a new install well clear of both.
 */
export function restoreLimits(archiveBytes: number): { maxBytes: number; maxEntries: number } {
  return { maxBytes: Math.max(256 * 1024 * 1024, archiveBytes * RATIO), maxEntries: Math.max(10_000, Math.ceil(archiveBytes / BYTES_PER_ENTRY)) };
}
const RATIO = 100;
const BYTES_PER_ENTRY = 100;

/** tar's own refusals (a truncated gzip, `..`, an absolute path: strict mode) said as the archive's fault. */
async function extractOrRefuse(archive: string, options: Parameters<typeof extract>[0]): Promise<void> {
  // tar loads with the restore command, not with every start of the binary (issue 13)
  const tar = await import("tar");
  try {
    await tar.extract(options);
  } catch (err) {
    throw new BackupError(`${archive} cannot be restored: ${(err as Error).message}; nothing was restored`);
  }
}

function readManifest(path: string, archive: string): BackupManifest {
  try {
    const m = JSON.parse(readFileSync(path, "utf8")) as BackupManifest | null;
    if (m && typeof m === "object") return m;
  } catch {
    // said below
  }
  throw new BackupError(`${archive} is not a Parley backup (${MANIFEST} is not a backup manifest)`);
}

/** Every file of the unpacked tree read-write for the owner only, every folder 0700. */
function lockDownModes(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      chmodSync(path, 0o700);
      lockDownModes(path);
    } else chmodSync(path, 0o600);
  }
}

/** Entries a data dir may hold and still count as empty for a restore. */
const IGNORABLE = new Set(["lost+found"]);

/**
 * `parley restore <file>`: unpacks a backup into an empty data dir. Refuses while a server holds
 * the directory (its pid file names a live process), when the directory holds anything, when the
 * archive is not a Parley backup, when its database fails integrity_check, and when it was made
 * by a newer build. Holds the data dir's lock meanwhile, so no server starts on a half restore.
 */
export async function restore(file: string, dataDir: string): Promise<BackupManifest> {
  const archive = resolve(file);
  if (!existsSync(archive)) throw new BackupError(`no backup at ${archive}`);
  const holder = dataDirHolder(dataDir);
  if (holder) throw new BackupError(`a Parley server (pid ${holder}) is using the data dir ${dataDir}; stop it before restoring`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const present = readdirSync(dataDir).filter((n) => !IGNORABLE.has(n));
  if (present.length) throw new BackupError(`the data dir ${dataDir} is not empty (${present.slice(0, 3).join(", ")}${present.length > 3 ? ", ..." : ""}); restore into an empty directory`);
  const unlock = lockDataDir(dataDir);
  // the scratch folder inside the (empty) data dir: same file system for the renames, and no write
  // to its parent, which the service user may not own (systemd's /var/lib, a volume's mount point)
  const work = mkdtempSync(join(resolve(dataDir), ".parley-restore-"));
  try {
    // strict: an absolute path or `..` (in a path or a link) is an error, not a warning; no owners
    // taken from the archive; links, devices and a server's live files refused (see refusal)
    const refused: string[] = [];
    const limits = restoreLimits(statSync(archive).size);
    let bytes = 0;
    let entries = 0;
    let over: string | null = null;
    await extractOrRefuse(archive, {
      file: archive,
      cwd: work,
      preserveOwner: false,
      strict: true,
      filter: (path, entry) => {
        if (over) return false;
        if (++entries > limits.maxEntries) over = `more than ${limits.maxEntries} entries`;
        else if ((bytes += "size" in entry ? (entry.size ?? 0) : 0) > limits.maxBytes) over = `more than ${limits.maxBytes} bytes unpacked`;
        if (over) return false;
        const why = "type" in entry ? refusal(path, entry) : null;
        if (why) refused.push(`${path} (${why})`);
        return why === null;
      },
    });
    if (over) throw new BackupError(`${archive} unpacks to ${over}, far more than a backup of its size holds; nothing was restored`);
    if (refused.length) throw new BackupError(`${archive} is not a backup Parley wrote: it holds ${refused.slice(0, 3).join(", ")}${refused.length > 3 ? ", ..." : ""}; nothing was restored`);
    // read and write for the server's user only, whatever the archive said (no setuid, no execute)
    lockDownModes(work);
    const manifestPath = join(work, MANIFEST);
    if (!existsSync(manifestPath) || !existsSync(join(work, DB_FILE))) throw new BackupError(`${archive} is not a Parley backup (no ${MANIFEST} or ${DB_FILE})`);
    const manifest = readManifest(manifestPath, archive);
    if (manifest.format !== 1) throw new BackupError(`${archive} has backup format ${manifest.format}; this build reads format 1`);
    const integrity = integrityCheck(join(work, DB_FILE));
    if (integrity !== "ok") throw new BackupError(`the database in ${archive} failed its integrity check: ${integrity}`);
    const db = openStore({ dataDir: work }, { path: join(work, DB_FILE) });
    try {
      await assertNotNewer(db);
    } finally {
      await db.close();
    }
    for (const name of readdirSync(work)) if (name !== MANIFEST) renameSync(join(work, name), join(dataDir, name));
    return manifest;
  } finally {
    rmSync(work, { recursive: true, force: true });
    unlock();
  }
}
