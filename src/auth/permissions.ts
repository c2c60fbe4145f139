import type { Role } from "../modules/users/roles.ts";

/** The permission groups (docs/team-and-billing.md). */
export type Permission = "read" | "messaging" | "manage" | "team" | "billing";

const MATRIX: Record<Permission, readonly Role[]> = {
  read: ["owner", "admin", "agent", "viewer"],
  messaging: ["owner", "admin", "agent"],
  manage: ["owner", "admin"],
  team: ["owner", "admin"],
  billing: ["owner"],
};

/** Whether a role holds a permission (docs/team-and-billing.md). */
export function can(role: Role, permission: Permission): boolean {
  return MATRIX[permission].includes(role);
}
