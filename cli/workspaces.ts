import type { Command } from "commander";
import { listAllWorkspaces } from "../src/modules/workspaces/repo.ts";
import { configOrExit, DATA_DIR_FLAG } from "./context.ts";
import { isoOrNull, readDataDir, runOperator, table, withDataDir, type OperatorContext } from "./data-dir.ts";

/** Prints every workspace (id, name, plan, status, members, owner). */
export async function listWorkspaces(ctx: OperatorContext, json = false): Promise<void> {
  const rows = (await listAllWorkspaces(ctx.db)).map((w) => ({ ...w, trialEndsAt: isoOrNull(w.trialEndsAt), currentPeriodEnd: isoOrNull(w.currentPeriodEnd), createdAt: isoOrNull(w.createdAt) }));
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
    .action((flags) => runOperator(() => readDataDir(configOrExit({ dataDir: flags.dataDir }), (ctx) => listWorkspaces(ctx, flags.json))));
  workspacesCreateCommand(cmd);
}

/** Adds `workspaces create` (the first account without the captcha: docs/operations.md, power from the data dir). */
export function workspacesCreateCommand(cmd: Command): void {
  cmd
    .command("create")
    .description("create a workspace with a verified owner (no captcha, no codes), on its trial unless --plan says otherwise; prints the owner's password when generated")
    .requiredOption("--name <workspace>", "name of the workspace (2-80 characters)")
    .requiredOption("--owner-email <email>", "the owner's email (their login)")
    .requiredOption("--owner-name <name>", "the owner's name")
    .option("--owner-mobile <phone>", "the owner's mobile, country code first (+, spaces and dashes allowed)")
    .option("--password <password>", "the owner's password (visible in the process list: prefer --password-stdin)")
    .option("--password-stdin", "read the owner's password from the first line of stdin")
    .option("--plan <plan>", "trial (default), unlimited (your own business: no quotas, no billing) or a plan of the catalogue", "trial")
    .option(...DATA_DIR_FLAG)
    .option("--json", "print JSON")
    .action((flags) =>
      runOperator(() =>
        withDataDir(configOrExit({ dataDir: flags.dataDir }), async (ctx) => {
          // imported with this command, not at start: `workspaces list` needs none of the account code
          const { createWorkspaceWithOwner, passwordFrom } = await import("./accounts.ts");
          const { password, generated } = await passwordFrom(flags);
          const ids = await createWorkspaceWithOwner(ctx, { workspace: flags.name, name: flags.ownerName, email: flags.ownerEmail, mobile: flags.ownerMobile, password }, flags.plan);
          if (flags.json) return ctx.out(JSON.stringify({ ...ids, email: flags.ownerEmail.trim().toLowerCase(), plan: flags.plan, ...(generated ? { password } : {}) }));
          ctx.out(`created workspace ${ids.workspaceId} "${flags.name}" (${flags.plan}) with owner ${flags.ownerEmail} (${ids.userId}), verified`);
          if (generated) ctx.out(`password: ${password}  (shown once; change it after the first login)`);
        }),
      ),
    );
}
