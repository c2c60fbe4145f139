import type { Subprocess } from "bun";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "bun:test";
import { until } from "./crash.ts";
import { BUN, listeningLine, ROOT, type Caller, type ChildServer } from "./process.ts";

export interface SimNetworkProcess {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  dataDir: string;
  logs(): string;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** A real `parley sim-network` process on a free port, with a data dir of its own. */
export async function spawnSimNetwork(args: string[] = []): Promise<SimNetworkProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-simnet-"));
  const proc = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "sim-network", "--port", "0", "--data-dir", dataDir, ...args], {
    cwd: ROOT,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const { line, logs } = await listeningLine<{ listening: string }>(proc, "sim-network");
  return {
    proc,
    url: line.listening,
    dataDir,
    logs,
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
}

export interface LinkLine {
  at: string;
  sessionId: string;
  phone: string | null;
  node: string;
  event: "open" | "close";
  reason?: "replaced" | "logout" | "gone" | "closed";
}

/** The sim network's link log (`sim-links.jsonl`), whole lines only. */
export function readLinks(dataDir: string): LinkLine[] {
  const path = join(dataDir, "sim-links.jsonl");
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  return text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LinkLine);
}

export { caller } from "./process.ts";
export type { Caller };

/** Creates a session on the node and pairs it through the sim routes (a phone scans the QR). */
export async function pair(call: Caller, phone: string, name = "linked"): Promise<string> {
  const created = await call("POST", "/api/v1/chatapp", { name });
  expect({ status: created.status, error: created.body.message }).toEqual({ status: 201, error: expect.any(String) });
  const sid = created.body.data.id as string;
  const connect = await call("POST", `/api/v1/chatapp/${sid}/connect`);
  expect({ status: connect.status, error: connect.body.message }).toEqual({ status: 200, error: expect.any(String) });
  await until("QR", async () => (await call("GET", `/api/v1/chatapp/${sid}/qr`)).status === 200);
  const scanned = await call("POST", `/api/sim/sessions/${sid}/scan`, { phoneNumber: phone });
  expect({ status: scanned.status, error: scanned.body.message }).toEqual({ status: 200, error: expect.any(String) });
  await until("connected", async () => (await call("GET", `/api/v1/chatapp/${sid}/status`)).body.data?.connected === true);
  return sid;
}
