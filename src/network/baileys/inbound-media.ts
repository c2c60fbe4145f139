import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";

/** A download refused or cut off for its size. */
export class MediaTooLarge extends Error {
  constructor(
    readonly size: number,
    readonly cap: number,
  ) {
    super(`media of ${size} bytes exceeds the cap of ${cap} bytes`);
  }
}

/**
 * Streams an inbound media download into a fresh file under `dir`: refused before any byte is
 * fetched when the size the message declares (`fileLength`) is over `cap`, and cut off when
 * the bytes run past `cap` whatever was declared. Memory stays at one chunk. On failure the
 * partial file is removed. Returns the file (the caller takes it over) and its size.
 */
export async function downloadToFile(
  open: () => Promise<Readable | AsyncIterable<Uint8Array>>,
  o: { dir: string; name: string; cap: number; declared?: number },
): Promise<{ file: string; size: number }> {
  if (o.declared !== undefined && o.declared > o.cap) throw new MediaTooLarge(o.declared, o.cap);
  await mkdir(o.dir, { recursive: true, mode: 0o700 });
  const file = join(o.dir, o.name);
  const sink = Bun.file(file).writer();
  let size = 0;
  let stream: Readable | AsyncIterable<Uint8Array> | undefined;
  try {
    stream = await open();
    for await (const chunk of stream as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > o.cap) throw new MediaTooLarge(size, o.cap);
      sink.write(chunk);
      await sink.flush();
    }
    await sink.end();
    return { file, size };
  } catch (err) {
    (stream as Readable | undefined)?.destroy?.();
    try {
      await sink.end();
    } catch {
      // the file goes anyway
    }
    await rm(file, { force: true });
    throw err;
  }
}
