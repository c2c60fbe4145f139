import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";

/**
 * Appends one line to a log file, whole or not at all: a write the disk cuts short (ENOSPC,
 * a file size limit) is taken back by truncating to the length before it, then thrown. A file
 * whose last line was torn by a crash gets a line break first, so the new line never glues
 * onto that fragment (readers skip the fragment).
 */
export function appendLine(path: string, line: string): void {
  const fd = openSync(path, "a+", 0o600);
  try {
    const size = fstatSync(fd).size;
    let text = line.endsWith("\n") ? line : line + "\n";
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) text = "\n" + text;
    }
    const bytes = Buffer.from(text);
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (err) {
      try {
        ftruncateSync(fd, size); // freeing space: this works on a full disk
      } catch {
        // the fragment stays; the next append starts on a line of its own (above)
      }
      throw err;
    }
  } finally {
    closeSync(fd);
  }
}
