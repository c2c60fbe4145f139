import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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
  const path = join(dataDir, "parley.pid");
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
