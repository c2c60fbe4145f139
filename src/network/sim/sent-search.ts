import { nodeFsPromises } from "../../node/lazy.ts";

const CHUNK = 1024 * 1024;

/**
 * Whether the sent log holds a send of the session with this network id: the file is read in
 * chunks of 1 MiB (asynchronously, never whole into memory), looking for the line's fixed
 * prefix (`{"sessionId":…,"networkMessageId":…`).
 */
export async function sentLogHas(path: string, sessionId: string, networkMessageId: string): Promise<boolean> {
  const needle = Buffer.from(JSON.stringify({ sessionId, networkMessageId }).slice(0, -1));
  const h = await nodeFsPromises().open(path, "r");
  try {
    const buf = Buffer.alloc(CHUNK + needle.length);
    let carry = 0;
    for (let pos = 0; ; ) {
      const { bytesRead } = await h.read(buf, carry, CHUNK, pos);
      if (bytesRead === 0) return false;
      const end = carry + bytesRead;
      if (buf.subarray(0, end).includes(needle)) return true;
      pos += bytesRead;
      // the needle may straddle two chunks: keep the last bytes
      carry = Math.min(needle.length - 1, end);
      buf.copy(buf, 0, end - carry, end);
    }
  } finally {
    await h.close();
  }
}
