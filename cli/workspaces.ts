import type { Command } from "commander";
import { listAllWorkspaces } from "../src/modules/workspaces/repo.ts";
import { configOrExit, DATA_DIR_FLAG } from "./context.ts";
import { isoOrNull, operatorAction, table, withDataDir, type OperatorContext } from "./operator.ts";

/** Prints every workspace (id, name, plan, status, members, owner). */
export function listWorkspaces(ctx: OperatorContext, json = false): void {
  const rows = listAllWorkspaces(ctx.db).map((w) => ({ ...w, trialEndsAt: isoOrNull(w.trialEndsAt), currentPeriodEnd: isoOrNull(w.currentPeriodEnd), createdAt: isoOrNull(w.createdAt) }));
  if (json) return ctx.out(JSON.stringify(rows, null, 2));
  if (!rows.length) return ctx.out("no workspaces");
  ctx.out(table(rows, ["id", "name", "planId", "status", "members", "owner", "trialEndsAt", "currentPeriodEnd"]));
}

/** `parley workspaces list`. */
export function workspacesCommand(program: Command): void {
  const cmd = program.command("workspaces").description("operator: workspaces in the data dir");
  cmd
    .command("list")
    .description("list every workspace with its plan, status and members")
    .option(...DATA_DIR_FLAG)
    .option("--json", "print JSON")
    .action((flags) => operatorAction(() => withDataDir(configOrExit({ dataDir: flags.dataDir }), (ctx) => listWorkspaces(ctx, flags.json))));
}
