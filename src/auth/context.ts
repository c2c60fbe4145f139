import type { Role } from "../modules/users/roles.ts";

/** Who is calling, resolved by the request guard: a member by their token, or an API key (an admin of its workspace). */
export type AuthContext =
  | { kind: "user"; userId: string; workspaceId: string; role: Role }
  | { kind: "apiKey"; apiKeyId: string; workspaceId: string; role: Role };
