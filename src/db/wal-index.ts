import { closeSync, existsSync, openSync, statSync, truncateSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The WAL-index header SQLite keeps at the start of the `-shm` file, shared by every
 * connection of every process: it is rewritten on every commit (its change counter goes up
 * and its 64-bit checksum changes). SQLite writes the second copy (bytes 48-95) before the
 * first (0-47); a reader that sees them differ caught a commit half-way. Offsets of the fields
 * read here: u32 in the machine's byte order (little-endian on every machine Parley ships for).
 * https://www.sqlite.org/walformat.html#the_wal_index_header
 */
export const WAL_HEADER = {
  /** iChange: counts the header's rewrites */
  change: 8,
  /** mxFrame: frames in the WAL since it last started over */
  frames: 16,
  /** aSalt[0]: changes (goes up by one) each time the WAL starts over */
  salt: 32,
  /** aCksum[2]: the header's checksum, two u32 */
  cksum: 40,
  /** where the second copy starts */
  copy: 48,
} as const;
/** The first bytes of the `-shm` file mapped: both copies of the header. */
const WAL_INDEX_HEADER_BYTES = 2 * WAL_HEADER.copy;
/** The size SQLite gives a WAL index in use (one 32 KiB region at least). */
const REGION = 32_768;

interface Mapping {
  view: DataView;
  /** the inode mapped: the live `-shm` file must be this one for the mapping to be read */
  ino: number;
  /** openDb connections of this process to the database (the mapping is kept while any is open) */
  opens: number;
}

const mappings = new Map<string, Mapping>();

/**
 * Maps the WAL index (`<db>-shm`) of a database file for the snapshot memo. Call it just
 * BEFORE this process opens the file with SQLite, and `unmapWalIndex` after closing it
 * (openDb does both).
 *
 * Why before: Bun.mmap opens the file, maps it and closes its descriptor, and closing any
 * descriptor of a file drops every POSIX lock the process holds on that file. Done while
 * SQLite had the index open, that dropped SQLite's locks on it (the one that says "in use",
 * the read marks): the next process to connect (a `parley backup`) took the index for
 * abandoned and truncated it under the server's mapping, which died of SIGBUS. Before the
 * process's first connection there is no lock to drop, so a second open in the same process
 * reuses the mapping instead of mapping again.
 *
 * An index nobody uses (missing, or shorter than a header) is created at the size SQLite
 * gives it, with the database's permissions; SQLite, connecting first, truncates and
 * rebuilds it in place, which a shared mapping follows. Best effort: on any failure the
 * memo keeps nothing and every read goes to SQLite.
 */
export function mapWalIndex(dbPath: string): void {
  const path = resolve(dbPath);
  const held = mappings.get(path);
  if (held && held.opens > 0) {
    held.opens++;
    return;
  }
  mappings.delete(path);
  const shm = `${path}-shm`;
  try {
    const size = existsSync(shm) ? statSync(shm).size : -1;
    if (size < WAL_INDEX_HEADER_BYTES) {
      closeSync(openSync(shm, "a", existsSync(path) ? statSync(path).mode & 0o777 : 0o644));
      truncateSync(shm, REGION);
    }
    const before = statSync(shm).ino;
    const map = Bun.mmap(shm);
    const ino = statSync(shm).ino;
    if (ino !== before || map.byteLength < WAL_INDEX_HEADER_BYTES) return;
    mappings.set(path, { view: new DataView(map.buffer, map.byteOffset, WAL_INDEX_HEADER_BYTES), ino, opens: 1 });
  } catch {
    // no mapping: no memo for this database
  }
}

/** After openDb closed its connection: the last one lets the mapping go. */
export function unmapWalIndex(dbPath: string): void {
  const path = resolve(dbPath);
  const held = mappings.get(path);
  if (held && --held.opens <= 0) mappings.delete(path);
}

/**
 * The mapped header of an open database's WAL index, or null: not mapped, or the live `-shm`
 * is another file than the one mapped (another process removed and made it again between the
 * mapping and SQLite's open). Checked once, with SQLite connected: while a connection has the
 * index open, SQLite never removes or truncates it.
 */
export function walIndexView(dbPath: string): DataView | null {
  const path = resolve(dbPath);
  const held = mappings.get(path);
  if (!held || held.opens <= 0) return null;
  try {
    return statSync(`${path}-shm`).ino === held.ino ? held.view : null;
  } catch {
    return null;
  }
}
