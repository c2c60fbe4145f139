import { errors } from "../../errors.ts";
import { nowMs, type AuthKit } from "./kit.ts";
import { maskPhone } from "./masks.ts";
import { updateUser, type ProfileRow } from "../users/repo.ts";
import { getProfile, profileOfRow } from "./repo.ts";

export interface Profile {
  id: string;
  email: string;
  name: string;
  role: string;
  tenantId: string;
  tenantName: string;
  twoFactorEnabled: boolean;
  /** the stored number, masked; null without one */
  mobileMasked: string | null;
  mobileVerified: boolean;
}

/**
 * GET /api/auth/profile: the caller as the database has it now; `read` is the caller's row
 * as the JWT guard read it for this request (then no second read, and the answer is there at
 * once: a promise only when the row must be read).
 */
export function profile(kit: AuthKit, workspaceId: string, userId: string, read?: ProfileRow): Profile | Promise<Profile> {
  if (read && read.id === userId && read.tenantId === workspaceId) {
    // the guard's row is the same object until the next commit (its snapshot memo): so is its profile
    let p = profiles.get(read);
    if (p === undefined) profiles.set(read, (p = profileOf(profileOfRow(read))));
    return p;
  }
  return getProfile(kit.deps.db, workspaceId, userId).then(profileOf);
}

const profiles = new WeakMap<ProfileRow, Profile>();

function profileOf(p: ReturnType<typeof profileOfRow>): Profile {
  if (!p) throw errors.notFound("User");
  const { mobile, mobileVerifiedAt, ...rest } = p;
  return { ...rest, mobileMasked: maskPhone(mobile), mobileVerified: mobile != null && mobileVerifiedAt != null };
}

/** PUT /api/auth/profile: the name is the one updatable field. */
export async function updateProfile(kit: AuthKit, workspaceId: string, userId: string, name: string): Promise<{ id: string; name: string }> {
  if (!(await getProfile(kit.deps.db, workspaceId, userId))) throw errors.notFound("User");
  await updateUser(kit.deps.db, workspaceId, userId, { name }, nowMs(kit));
  return { id: userId, name };
}
