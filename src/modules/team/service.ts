import type { AuthContext } from "../../auth/context.ts";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { MemberView } from "./model.ts";
import { deleteMember, findMember, listMembers, setRole, type MemberRow } from "../users/repo.ts";

type Deps = Pick<AppDeps, "db" | "clock">;
type AssignableRole = "admin" | "agent" | "viewer";

/** A member as the API shows it. */
export function memberView(m: MemberRow): MemberView {
  return { id: m.id, email: m.email, name: m.name, role: m.role, twoFactorEnabled: m.twoFactorEnabled, createdAt: new Date(m.createdAt).toISOString() };
}

/** Members of the workspace, owner first. */
export async function listTeam(deps: Deps, workspaceId: string, page: number, limit: number): Promise<{ items: MemberView[]; total: number }> {
  const { rows, total } = await listMembers(deps.db, workspaceId, page, limit);
  return { items: rows.map(memberView), total };
}

async function member(deps: Deps, workspaceId: string, userId: string): Promise<MemberRow> {
  const m = await findMember(deps.db, workspaceId, userId);
  if (!m) throw errors.notFound("Member");
  return m;
}

/** Changes a member's role (docs/team-and-billing.md); the owner's role only moves by transfer. */
export async function changeRole(deps: Deps, workspaceId: string, userId: string, role: AssignableRole): Promise<MemberView> {
  return deps.db.tx(async () => {
    const m = await member(deps, workspaceId, userId);
    if (m.role === "owner") throw errors.conflict("The owner cannot be demoted; transfer ownership first");
    await setRole(deps.db, workspaceId, userId, role, deps.clock.now().getTime());
    return memberView({ ...m, role });
  });
}

/** Removes a member; the owner cannot be removed. Their tokens stop working at once. */
export async function removeMember(deps: Deps, workspaceId: string, userId: string): Promise<void> {
  await deps.db.tx(async () => {
    const m = await member(deps, workspaceId, userId);
    if (m.role === "owner") throw errors.conflict("The owner cannot be removed; transfer ownership first");
    await deleteMember(deps.db, workspaceId, userId);
  });
}

/** Makes another member the owner; the previous owner becomes an admin. Owner only. */
export async function transferOwnership(deps: Deps, auth: AuthContext, toUserId: string): Promise<{ owner: MemberView; previousOwner: MemberView }> {
  if (auth.kind !== "user" || auth.role !== "owner") throw errors.forbidden("Only the owner can transfer ownership");
  return deps.db.tx(async () => {
    const target = await member(deps, auth.workspaceId, toUserId);
    if (target.id === auth.userId) throw errors.conflict("You already own this workspace");
    const me = await member(deps, auth.workspaceId, auth.userId);
    const now = deps.clock.now().getTime();
    await setRole(deps.db, auth.workspaceId, me.id, "admin", now);
    await setRole(deps.db, auth.workspaceId, target.id, "owner", now);
    return { owner: memberView({ ...target, role: "owner" }), previousOwner: memberView({ ...me, role: "admin" }) };
  });
}
