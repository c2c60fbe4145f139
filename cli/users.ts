import type { Command } from "commander";
import { nextStep } from "../src/modules/auth/repo.ts";
import { listUsersOf } from "../src/modules/users/repo.ts";
import { resolveWorkspaceRef } from "../src/modules/workspaces/service.ts";
import { configOrExit, DATA_DIR_FLAG } from "./context.ts";
import { createUser, passwordFrom } from "./accounts.ts";
import { isoOrNull, readDataDir, runOperator, table, withDataDir, type OperatorContext } from "./operator.ts";

/** Prints the members of a workspace (id or exact name). */
export async function listUsers(ctx: OperatorContext, workspace: string, json = false): Promise<void> {
  const ws = await resolveWorkspaceRef(ctx, workspace);
  const rows = (await listUsersOf(ctx.db, ws.id)).map((u) => ({
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    verified: nextStep(u) === "done",
    createdAt: isoOrNull(u.createdAt),
  }));
  if (json) return ctx.out(JSON.stringify(rows, null, 2));
  ctx.out(table(rows, ["id", "email", "name", "role", "verified", "createdAt"]));
}

/** `parley users list --workspace W`. */
export function usersCommand(program: Command): void {
  const cmd = program.command("users").description("operator: users of a workspace");
  cmd
    .command("list")
    .description("list the members of a workspace")
    .requiredOption("-w, --workspace <idOrName>", "workspace id or exact name")
    .option(...DATA_DIR_FLAG)
    .option("--json", "print JSON")
    .action((flags) => runOperator(() => readDataDir(configOrExit({ dataDir: flags.dataDir }), (ctx) => listUsers(ctx, flags.workspace, flags.json))));
  cmd
    .command("create")
    .description("add a verified member to a workspace (no invitation mail); prints the password when generated")
    .requiredOption("-w, --workspace <idOrName>", "workspace id or exact name")
    .requiredOption("--email <email>", "their email (their login)")
    .requiredOption("--name <name>", "their name")
    .option("--role <role>", "owner, admin, agent or viewer", "agent")
    .option("--mobile <phone>", "their mobile, country code first (+, spaces and dashes allowed)")
    .option("--password <password>", "their password (visible in the process list: prefer --password-stdin)")
    .option("--password-stdin", "read the password from the first line of stdin")
    .option(...DATA_DIR_FLAG)
    .action((flags) =>
      runOperator(() =>
        withDataDir(configOrExit({ dataDir: flags.dataDir }), async (ctx) => {
          const { password, generated } = await passwordFrom(flags);
          const ids = await createUser(ctx, flags.workspace, { name: flags.name, email: flags.email, mobile: flags.mobile, role: flags.role, password });
          ctx.out(`created ${flags.role} ${flags.email} (${ids.userId}) in workspace ${ids.workspaceId}, verified`);
          if (generated) ctx.out(`password: ${password}  (shown once; change it after the first login)`);
        }),
      ),
    );
}
