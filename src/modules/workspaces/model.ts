import { z } from "zod";

export const updateWorkspaceBody = z
  .object({
    name: z.string().trim().min(2).max(80).optional(),
    /** every member must pass a second factor at login (D3) */
    require2fa: z.boolean().optional(),
  })
  .refine((b) => b.name !== undefined || b.require2fa !== undefined, { message: "give name or require2fa", path: ["name"] });
export type UpdateWorkspaceInput = z.infer<typeof updateWorkspaceBody>;

export interface WorkspaceView {
  id: string;
  name: string;
  planId: string;
  subscriptionStatus: string;
  require2fa: boolean;
  createdAt: string;
}
