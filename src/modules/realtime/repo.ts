import type { Database } from "bun:sqlite";
import type { Role } from "../users/table.ts";

/** Looks up a member's current role in a workspace; null when the user is gone (or elsewhere). */
export type MemberRoleLookup = (workspaceId: string, userId: string) => Role | null;

/**
 * One prepared statement for the socket checks: they run per socket every few seconds and
 * before every QR, so the query is compiled once.
 */
export function memberRoleLookup(sqlite: Database): MemberRoleLookup {
  const q = sqlite.prepare<{ role: Role }, [string, string]>("SELECT role FROM users WHERE workspace_id = ? AND id = ?");
  return (workspaceId, userId) => q.get(workspaceId, userId)?.role ?? null;
}
