import { existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const PID_FILE = "parley.pid";
const URL_FILE = "parley.url";

/** One server per data dir: two would run the same jobs and the same network sessions. */
export class DataDirBusyError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes `<dataDir>/parley.pid`. A file left by a process that is gone (a crash, SIGKILL) is
 * taken over; one held by a live process refuses. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, PID_FILE);
  for (let tries = 0; tries < 3; tries++) {
    try {
      writeFileSync(path, String(process.pid), { flag: "wx", mode: 0o600 });
      return () => {
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number(readFileSync(path, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new DataDirBusyError(`another Parley server (pid ${holder}) is using the data dir ${dataDir}`);
      }
      unlinkSync(path); // stale: its process is gone
    }
  }
  throw new DataDirBusyError(`could not lock the data dir ${dataDir}`);
}

/** The pid of the live server holding the data dir, or null (no pid file, or its process is gone). */
export function dataDirHolder(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, PID_FILE), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Writes `<dataDir>/parley.url` beside the pid file once the server listens: operator commands
 * find the running server from the data dir alone (port 0, a `--port` flag or a different
 * PARLEY_PORT in the operator's shell would otherwise send them to the wrong place).
 */
export function announceUrl(dataDir: string, url: string): void {
  const tmp = join(dataDir, `${URL_FILE}.${process.pid}`);
  writeFileSync(tmp, JSON.stringify({ pid: process.pid, url }) + "\n", { mode: 0o600 });
  renameSync(tmp, join(dataDir, URL_FILE));
}

/** Removes the URL file if this process wrote it. */
export function withdrawUrl(dataDir: string): void {
  const path = join(dataDir, URL_FILE);
  try {
    if ((JSON.parse(readFileSync(path, "utf8")) as { pid?: number }).pid === process.pid) unlinkSync(path);
  } catch {
    // already gone
  }
}

/** The URL the live server of the data dir announced, or null (none running, or it died without cleaning up). */
export function announcedUrl(dataDir: string): string | null {
  const path = join(dataDir, URL_FILE);
  if (!existsSync(path)) return null;
  try {
    const { pid, url } = JSON.parse(readFileSync(path, "utf8")) as { pid?: number; url?: string };
    return typeof url === "string" && typeof pid === "number" && alive(pid) ? url : null;
  } catch {
    return null;
  }
}
