import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { UpdateWorkspaceInput, WorkspaceView } from "./model.ts";
import { findWorkspace, findWorkspacesByRef, updateWorkspace, type WorkspaceRow } from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "clock">;

function view(w: WorkspaceRow): WorkspaceView {
  return { id: w.id, name: w.name, planId: w.planId, subscriptionStatus: w.subscriptionStatus, require2fa: w.require2fa, createdAt: new Date(w.createdAt).toISOString() };
}

/** The caller's workspace. */
export function getWorkspace(deps: Deps, workspaceId: string): WorkspaceView {
  const w = findWorkspace(deps.db, workspaceId);
  if (!w) throw errors.notFound("Workspace");
  return view(w);
}

/** Renames the workspace or changes whether every member needs a second factor. */
export function changeWorkspace(deps: Deps, workspaceId: string, input: UpdateWorkspaceInput): WorkspaceView {
  const patch: Partial<Pick<WorkspaceRow, "name" | "require2fa">> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.require2fa !== undefined) patch.require2fa = input.require2fa;
  updateWorkspace(deps.db, workspaceId, patch, deps.clock.now().getTime());
  return getWorkspace(deps, workspaceId);
}

/** Resolves an operator's `--workspace` (id or exact name) to one workspace, or explains why not. */
export function resolveWorkspaceRef(deps: Pick<AppDeps, "db">, ref: string): WorkspaceRow {
  const found = findWorkspacesByRef(deps.db, ref);
  if (found.length === 0) throw errors.notFound(`Workspace "${ref}"`);
  if (found.length > 1) throw errors.conflict(`Several workspaces are named "${ref}": use the id`);
  return found[0]!;
}
