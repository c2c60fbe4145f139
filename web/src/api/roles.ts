import type { Role } from "./tokens.ts";

/** What each role (docs/team-and-billing.md) may do. The API refuses the rest anyway; the UI does not offer it. */
export type Permission = "read" | "messaging" | "manage" | "team" | "billing";
const TABLE: Record<Permission, Role[]> = {
  read: ["owner", "admin", "agent", "viewer"],
  messaging: ["owner", "admin", "agent"],
  manage: ["owner", "admin"],
  team: ["owner", "admin"],
  billing: ["owner"],
};

export function can(role: Role | undefined, p: Permission): boolean {
  return !!role && TABLE[p].includes(role);
}

/** For 403 messages: which roles may do what the user tried. */
export const WHO_MAY: Record<Permission, string> = {
  read: "any member",
  messaging: "owners, admins and agents",
  manage: "owners and admins",
  team: "owners and admins",
  billing: "the owner",
};
