import { writeOut } from "../src/node/tty.ts";
import type { Command } from "commander";
import { openOperator, operatorOptions, runOperator, type OperatorFlags } from "./operator.ts";
import { findWorkspace } from "./sessions.ts";

// `parley campaigns`: the screens (Ink, React) are imported when a command runs, so `parley
// serve` and the other commands never load them (./campaigns.tsx)

const count = (n: number) => String(n).padStart(6);

/** `parley campaigns list|watch`. */
export function campaignsCommand(program: Command): void {
  const campaigns = program.command("campaigns").description("list campaigns and follow one live (operator, via the data dir)");

  operatorOptions(campaigns.command("list").description("list campaigns (all workspaces, or one with --workspace)"))
    .option("--json", "print JSON")
    .action((flags: OperatorFlags & { json?: boolean }) =>
      runOperator(async () => {
        const { listCampaignRows } = await import("./campaigns.tsx");
        const op = await openOperator(flags);
        const rows = await listCampaignRows(op, flags.workspace ? (await findWorkspace(op, flags.workspace)).id : null);
        if (flags.json) return void writeOut(JSON.stringify(rows, null, 2) + "\n");
        if (!rows.length) return void writeOut("no campaigns\n");
        writeOut(`${"id".padEnd(36)}  ${"status".padEnd(30)}  total   sent  deliv   read failed   skip  name (workspace)\n`);
        for (const r of rows) {
          const status = r.pausedReason ? `${r.status} (${r.pausedReason})` : r.status;
          writeOut(
            `${r.id}  ${status.padEnd(30)} ${count(r.total)} ${count(r.sent)} ${count(r.delivered)} ${count(r.read)} ${count(r.failed)} ${count(r.skipped)}  ${r.name} (${r.workspace})\n`,
          );
        }
      }),
    );

  operatorOptions(campaigns.command("watch <id>").description("live progress of a campaign on the running server; exit 0 when it completes"))
    .option("--interval <seconds>", "how often to look", "1")
    .action((id: string, flags: OperatorFlags & { interval: string }) =>
      runOperator(async () => {
        const { watch } = await import("./campaigns.tsx");
        const code = await watch(id, flags);
        process.exit(code);
      }),
    );
}
