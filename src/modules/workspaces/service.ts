import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { UpdateWorkspaceInput, WorkspaceView } from "./model.ts";
import { countMembersWithoutVerifiedMobile } from "../users/repo.ts";
import { findWorkspace, findWorkspacesByRef, updateWorkspace, type WorkspaceRow } from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "clock" | "config">;

function view(w: WorkspaceRow): WorkspaceView {
  return { id: w.id, name: w.name, planId: w.planId, subscriptionStatus: w.subscriptionStatus, require2fa: w.require2fa, optOutKeywords: w.optOutKeywords, optInKeywords: w.optInKeywords, timezone: w.timezone, createdAt: new Date(w.createdAt).toISOString() };
}

/** The caller's workspace. */
export async function getWorkspace(deps: Deps, workspaceId: string): Promise<WorkspaceView> {
  const w = await findWorkspace(deps.db, workspaceId);
  if (!w) throw errors.notFound("Workspace");
  return view(w);
}

/**
 * Renames the workspace or changes whether every member needs a second factor. Requiring it
 * is refused (409) while a member could not pass one: no verified mobile for a code and no
 * identity provider for an ID token would lock them out.
 */
export async function changeWorkspace(deps: Deps, workspaceId: string, input: UpdateWorkspaceInput): Promise<WorkspaceView> {
  const patch: Partial<Pick<WorkspaceRow, "name" | "require2fa" | "optOutKeywords" | "optInKeywords" | "timezone">> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.require2fa !== undefined) patch.require2fa = input.require2fa;
  if (input.optOutKeywords !== undefined) patch.optOutKeywords = input.optOutKeywords;
  if (input.optInKeywords !== undefined) patch.optInKeywords = input.optInKeywords;
  if (input.timezone !== undefined) patch.timezone = input.timezone;
  const db = deps.db;
  await db.tx(async () => {
    if (patch.optOutKeywords || patch.optInKeywords) {
      const current = await findWorkspace(db, workspaceId);
      const out = patch.optOutKeywords ?? current?.optOutKeywords ?? [];
      const both = (patch.optInKeywords ?? current?.optInKeywords ?? []).filter((k) => out.includes(k));
      if (both.length) throw errors.validation({ [patch.optInKeywords ? "optInKeywords" : "optOutKeywords"]: `"${both[0]}" cannot both opt out and opt in` });
    }
    if (input.require2fa === true && !deps.config.oidcIssuer) {
      const stuck = await countMembersWithoutVerifiedMobile(db, workspaceId);
      if (stuck > 0) {
        const who = stuck === 1 ? "1 member has" : `${stuck} members have`;
        throw errors.conflict(`Cannot require a second factor: ${who} no verified mobile number and no identity provider is configured, so they could not sign in`);
      }
    }
    await updateWorkspace(db, workspaceId, patch, deps.clock.now().getTime());
  });
  return getWorkspace(deps, workspaceId);
}

/** Resolves an operator's `--workspace` (id or exact name) to one workspace, or explains why not. */
export async function resolveWorkspaceRef(deps: Pick<AppDeps, "db">, ref: string): Promise<WorkspaceRow> {
  const found = await findWorkspacesByRef(deps.db, ref);
  if (found.length === 0) throw errors.notFound(`Workspace "${ref}"`);
  if (found.length > 1) throw errors.conflict(`Several workspaces are named "${ref}": use the id`);
  return found[0]!;
}
