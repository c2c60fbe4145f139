import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { extract } from "tar";
import { dataDirHolder, lockDataDir } from "../db/lock.ts";
import { assertNotNewer } from "../db/migrate.ts";
import { openDb } from "../db/open.ts";
import { BackupError, DB_FILE, integrityCheck, MANIFEST, type BackupManifest } from "./backup.ts";

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
  const work = mkdtempSync(join(dirname(resolve(dataDir)), ".parley-restore-"));
  try {
    // portable, no absolute paths or `..` (tar strips them), and no owners taken from the archive
    await extract({ file: archive, cwd: work, preserveOwner: false, strict: true });
    const manifestPath = join(work, MANIFEST);
    if (!existsSync(manifestPath) || !existsSync(join(work, DB_FILE))) throw new BackupError(`${archive} is not a Parley backup (no ${MANIFEST} or ${DB_FILE})`);
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as BackupManifest;
    if (manifest.format !== 1) throw new BackupError(`${archive} has backup format ${manifest.format}; this build reads format 1`);
    const integrity = integrityCheck(join(work, DB_FILE));
    if (integrity !== "ok") throw new BackupError(`the database in ${archive} failed its integrity check: ${integrity}`);
    const opened = openDb(join(work, DB_FILE));
    try {
      assertNotNewer(opened.db);
    } finally {
      opened.close();
    }
    for (const name of readdirSync(work)) if (name !== MANIFEST) renameSync(join(work, name), join(dataDir, name));
    return manifest;
  } finally {
    rmSync(work, { recursive: true, force: true });
    unlock();
  }
}
