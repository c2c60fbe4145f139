import type { Command } from "commander";
import { errors } from "../src/errors.ts";
import { createApiKeyBody } from "../src/modules/apikeys/model.ts";
import { createApiKey, listKeys, revokeKey } from "../src/modules/apikeys/service.ts";
import { resolveWorkspaceRef } from "../src/modules/workspaces/service.ts";
import { configOrExit, DATA_DIR_FLAG } from "./context.ts";
import { runOperator, table, withDataDir, type OperatorContext } from "./operator.ts";

/** Creates an API key for a workspace and prints it (the only time it is shown). */
export async function createKey(ctx: OperatorContext, workspace: string, name: string, expiresAt?: string): Promise<void> {
  const ws = await resolveWorkspaceRef(ctx, workspace);
  const input = createApiKeyBody.safeParse({ name, expiresAt });
  if (!input.success) throw errors.validation(Object.fromEntries(input.error.issues.map((i) => [i.path.join("."), i.message])));
  const key = await createApiKey(ctx, ws.id, input.data, null);
  ctx.out(key.key);
  ctx.out(`created API key ${key.id} (${key.prefix}…) "${key.name}" for workspace ${ws.name}; store it now, it is not shown again`);
}

/** Prints the live keys of a workspace. */
export async function listWorkspaceKeys(ctx: OperatorContext, workspace: string): Promise<void> {
  const ws = await resolveWorkspaceRef(ctx, workspace);
  const { items } = await listKeys(ctx, ws.id, 1, 100_000);
  ctx.out(items.length ? table(items as unknown as Record<string, unknown>[], ["id", "prefix", "name", "createdAt", "lastUsedAt", "expiresAt"]) : "no API keys");
}

/** `parley keys create|list|revoke`. */
export function keysCommand(program: Command): void {
  const cmd = program.command("keys").description("operator: API keys of a workspace");
  const run = (flags: { dataDir?: string }, fn: (ctx: OperatorContext) => void | Promise<void>) =>
    runOperator(() => withDataDir(configOrExit({ dataDir: flags.dataDir }), fn));
  cmd
    .command("create")
    .description("create an API key (printed once)")
    .requiredOption("-w, --workspace <idOrName>", "workspace id or exact name")
    .requiredOption("-n, --name <name>", "name of the key")
    .option("--expires-at <iso>", "expiry, ISO 8601")
    .option(...DATA_DIR_FLAG)
    .action((flags) => run(flags, (ctx) => createKey(ctx, flags.workspace, flags.name, flags.expiresAt)));
  cmd
    .command("list")
    .description("list the live API keys of a workspace")
    .requiredOption("-w, --workspace <idOrName>", "workspace id or exact name")
    .option(...DATA_DIR_FLAG)
    .action((flags) => run(flags, (ctx) => listWorkspaceKeys(ctx, flags.workspace)));
  cmd
    .command("revoke")
    .description("revoke an API key at once")
    .requiredOption("-w, --workspace <idOrName>", "workspace id or exact name")
    .requiredOption("--id <keyId>", "id of the key")
    .option(...DATA_DIR_FLAG)
    .action((flags) =>
      run(flags, async (ctx) => {
        await revokeKey(ctx, (await resolveWorkspaceRef(ctx, flags.workspace)).id, flags.id);
        ctx.out(`revoked API key ${flags.id}`);
      }),
    );
}
