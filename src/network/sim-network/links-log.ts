import { join } from "node:path";
import { LineLog } from "../sim/line-log.ts";
import type { LinkCloseReason } from "./protocol.ts";

export interface LinkRecord {
  at: string;
  sessionId: string;
  phone: string | null;
  node: string;
  event: "open" | "close";
  reason?: LinkCloseReason;
}

/** `<dataDir>/sim-links.jsonl`: each link's open and close, one JSON line each, written off the hot path. */
export class LinksLog {
  private log: LineLog;

  constructor(dataDir: string) {
    this.log = new LineLog(join(dataDir, "sim-links.jsonl"));
  }

  record(r: Omit<LinkRecord, "at">): void {
    const line: LinkRecord = { at: new Date().toISOString(), ...r };
    this.log.append(JSON.stringify(line)).catch((err) => console.error("sim-links.jsonl: a line was not written", err));
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
