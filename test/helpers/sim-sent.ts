import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface SimSentEntry {
  sessionId: string;
  to: string;
  text?: string;
  clientMessageId?: string;
}

/**
 * What the sim network accepted, from its log in the data dir (`sim-sent.jsonl`). Complete lines
 * only: a server appending while this reads can show a line's first bytes before the rest (a line
 * that crosses a page boundary is copied a page at a time), and a test polls this file while a
 * server writes it.
 */
export function readSimSent(dataDir: string): SimSentEntry[] {
  const path = join(dataDir, "sim-sent.jsonl");
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  return text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as SimSentEntry);
}
