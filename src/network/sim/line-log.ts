import { mkdirSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
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
 * lines not yet written (whose appends had not resolved). `close` writes what is queued.
 */
export class LineLog {
  private handle: FileHandle | null = null;
  private size = -1;
  private queued: Batch = { lines: [], done: [] };
  private writing: Promise<void> | null = null;
  private closed = false;

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

  /** Writes what is queued and closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    await this.handle?.close().catch(() => {});
    this.handle = null;
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

  private async write(text: string): Promise<void> {
    if (!this.handle) {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.handle = await open(this.path, "a+", 0o600);
    }
    const h = this.handle;
    if (this.size < 0) {
      this.size = (await h.stat()).size;
      if (this.size > 0) {
        const last = Buffer.alloc(1);
        await h.read(last, 0, 1, this.size - 1);
        if (last[0] !== 0x0a) text = "\n" + text; // a line torn by a crash: never glue onto it
      }
    }
    const bytes = Buffer.from(text);
    const start = this.size;
    try {
      for (let done = 0; done < bytes.length; ) done += (await h.write(bytes, done, bytes.length - done, start + done)).bytesWritten;
      this.size = start + bytes.length;
    } catch (err) {
      try {
        await h.truncate(start); // freeing space: this works on a full disk
      } catch {
        // the fragment stays; the next write starts on a line of its own
      }
      this.size = -1;
      throw err;
    }
  }
}
