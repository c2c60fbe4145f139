import type { DB } from "../../db/store.ts";
import type { Role } from "../users/roles.ts";
import { memberRoleReader } from "../users/repo.ts";

/** Looks up a member's current role in a workspace; null when the user is gone (or elsewhere). */
export type MemberRoleLookup = (workspaceId: string, userId: string) => Promise<Role | null>;

/**
 * One prepared statement for the socket checks: they run per socket every few seconds and
 * before every QR, so the query is compiled once.
 */
export function memberRoleLookup(db: DB): MemberRoleLookup {
  return memberRoleReader(db);
}
