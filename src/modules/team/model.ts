import { z } from "zod";
import { phoneField } from "../../http/phone.ts";
import { emailField, newPasswordField } from "../auth/model.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

/** Roles that can be given by invitation or role change; `owner` only moves by transfer. */
export const ASSIGNABLE_ROLES = ["admin", "agent", "viewer"] as const;

export const inviteBody = lazySchema(() =>
  z.object({
    email: emailField,
    role: z.enum(ASSIGNABLE_ROLES),
  }),
);
export type InviteInput = z.infer<typeof inviteBody>;

export const acceptBody = lazySchema(() =>
  z.object({
    token: z.string().min(20).max(200),
    name: z.string().trim().min(2).max(80),
    /** the rules of registration (docs/authentication.md): 8-128 characters, not a common password */
    password: newPasswordField,
    /** digits with country code, no plus (docs/api.md) */
    mobile: phoneField.optional(),
  }),
);
export type AcceptInput = z.infer<typeof acceptBody>;

export const changeRoleBody = lazySchema(() => z.object({ role: z.enum(ASSIGNABLE_ROLES) }));
export const transferBody = lazySchema(() => z.object({ userId: z.uuid() }));
export const idParams = lazySchema(() => z.object({ id: z.uuid() }));

export interface MemberView {
  id: string;
  email: string;
  name: string;
  role: string;
  twoFactorEnabled: boolean;
  createdAt: string;
}

export type InvitationStatus = "pending" | "expired" | "accepted" | "revoked";

export interface InvitationView {
  id: string;
  email: string;
  role: string;
  status: InvitationStatus;
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
}
