import { writeOut } from "../src/node/tty.ts";
import type { Command } from "commander";
import type { DB } from "../src/db/store.ts";
import { nodesSeenSince } from "../src/modules/nodes/repo.ts";
import { liveLeases } from "../src/modules/sessions/lease-repo.ts";
import { isoOrNull, openOperator, operatorOptions, runOperator, table, type OperatorFlags } from "./operator.ts";

const HOUR = 3_600_000;

export interface NodeView {
  id: string;
  url: string | null;
  version: string;
  startedAt: string;
  lastSeenAt: string;
  stoppedAt: string | null;
  alive: boolean;
  /** the sessions whose live lease the node holds */
  sessions: string[];
}

/**
 * The nodes seen in the last hour and the sessions each holds. Alive: not stopped, and heard
 * from within one lease (a node renews every quarter of it).
 */
export async function listNodes(db: DB, leaseMs: number, now = Date.now()): Promise<NodeView[]> {
  const leases = await liveLeases(db, now);
  return (await nodesSeenSince(db, now - HOUR)).map((n) => ({
    id: n.id,
    url: n.url,
    version: n.version,
    startedAt: isoOrNull(n.startedAt)!,
    lastSeenAt: isoOrNull(n.lastSeenAt)!,
    stoppedAt: isoOrNull(n.stoppedAt),
    alive: n.stoppedAt === null && now - n.lastSeenAt <= leaseMs,
    sessions: leases.filter((l) => l.nodeId === n.id).map((l) => l.sessionId),
  }));
}

/** `parley nodes [--json]`. */
export function nodesCommand(program: Command): void {
  operatorOptions(program.command("nodes").description("the nodes (serve processes) seen in the last hour and the sessions each holds"))
    .option("--json", "print JSON")
    .action((flags: OperatorFlags & { json?: boolean }) =>
      runOperator(async () => {
        const op = await openOperator(flags);
        const nodes = await listNodes(op.db, op.config.sessionLeaseMs);
        if (flags.json) return void writeOut(JSON.stringify(nodes, null, 2) + "\n");
        if (!nodes.length) return void writeOut("no node seen in the last hour\n");
        const rows = nodes.map((n) => ({ ...n, alive: n.alive ? "yes" : "no", sessions: n.sessions.length }));
        writeOut(table(rows, ["id", "url", "alive", "sessions", "startedAt", "lastSeenAt"]) + "\n");
      }),
    );
}
