import * as nodeFs from "node:fs";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

interface Batch {
  lines: string[];
  done: { resolve(): void; reject(err: unknown): void }[];
}

/**
 * An append-only log of whole JSON lines, written off the hot path: `append` queues a line and
 * the queued lines go out together in one asynchronous write (a group commit), so a burst of
 * appends costs one write and the event loop never waits on the disk. `append` resolves once
 * its line is in the file. Lines are whole or absent: a write the disk cuts short (ENOSPC, a
 * file size limit) is taken back by truncating to the length before it, and its appends reject;
 * a file whose last line was torn by a crash gets a line break first. A crash loses at most the
 * lines not yet written (whose appends had not resolved). `close` writes what is queued. The file is
 * opened for each write and closed after it.
 */
export class LineLog {
  private queued: Batch = { lines: [], done: [] };
  private writing: Promise<void> | null = null;
  private closed = false;
  private dirMade = false;

  constructor(readonly path: string) {}

  append(line: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.path} is closed`));
    return new Promise<void>((resolve, reject) => {
      this.queued.lines.push(line.endsWith("\n") ? line : line + "\n");
      this.queued.done.push({ resolve, reject });
      // every append of this tick joins one write
      if (!this.writing) this.writing = Promise.resolve().then(() => this.drain());
    });
  }

  /** Waits until every line appended so far is written. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Writes what is queued; appends after it are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private take(): Batch {
    const batch = this.queued;
    this.queued = { lines: [], done: [] };
    return batch;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queued.lines.length) {
        const batch = this.take();
        try {
          await this.write(batch.lines.join(""));
          for (const d of batch.done) d.resolve();
        } catch (err) {
          for (const d of batch.done) d.reject(err);
        }
      }
    } finally {
      this.writing = null;
    }
  }

  /** One batch: the file is opened for it and closed after (no descriptor outlives a write). */
  private async write(text: string): Promise<void> {
    if (!this.dirMade) mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    this.dirMade = true;
    const fd = await fs.open(this.path, "a+", 0o600);
    try {
      const size = (await fs.fstat(fd)).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        await fs.read(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) text = "\n" + text; // a line torn by a crash: never glue onto it
      }
      const bytes = Buffer.from(text);
      try {
        for (let done = 0; done < bytes.length; ) done += await fs.write(fd, bytes, done, bytes.length - done);
      } catch (err) {
        try {
          await fs.ftruncate(fd, size); // freeing space: this works on a full disk
        } catch {
          // the fragment stays; the next write starts on a line of its own
        }
        throw err;
      }
    } finally {
      await fs.close(fd);
    }
  }
}

/** node:fs calls on plain descriptors, as promises (a FileHandle must not be left to the GC). */
const fs = {
  open: (path: string, flags: string, mode: number) => new Promise<number>((res, rej) => nodeFs.open(path, flags, mode, (err, fd) => (err ? rej(err) : res(fd)))),
  fstat: (fd: number) => new Promise<nodeFs.Stats>((res, rej) => nodeFs.fstat(fd, (err, st) => (err ? rej(err) : res(st)))),
  read: (fd: number, buf: Buffer, off: number, len: number, pos: number) =>
    new Promise<number>((res, rej) => nodeFs.read(fd, buf, off, len, pos, (err, n) => (err ? rej(err) : res(n)))),
  write: (fd: number, buf: Buffer, off: number, len: number) =>
    new Promise<number>((res, rej) => nodeFs.write(fd, buf, off, len, null, (err, n) => (err ? rej(err) : res(n)))),
  ftruncate: (fd: number, len: number) => new Promise<void>((res, rej) => nodeFs.ftruncate(fd, len, (err) => (err ? rej(err) : res()))),
  close: (fd: number) => new Promise<void>((res, rej) => nodeFs.close(fd, (err) => (err ? rej(err) : res()))),
};
