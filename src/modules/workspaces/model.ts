import { z } from "zod";
import { lazySchema } from "../../http/lazy-schema.ts";
import { isTimeZone } from "../campaigns/pacing.ts";

/** An opt-in/out keyword (docs/contacts-and-campaigns.md): matched trimmed and case-insensitively, stored upper-case. */
const keywordList = lazySchema(() =>
  z
    .array(z.string().trim().min(1, "must not be empty").max(40, "must be at most 40 characters").toUpperCase())
    .max(20, "at most 20 keywords")
    .transform((k) => [...new Set(k)]),
);

export const updateWorkspaceBody = lazySchema(() =>
  z
    .object({
      name: z.string().trim().min(2).max(80).optional(),
      /** every member must pass a second factor at login (docs/authentication.md) */
      require2fa: z.boolean().optional(),
      /** inbound texts that opt a contact out (default STOP, UNSUBSCRIBE); [] turns it off */
      optOutKeywords: keywordList.optional(),
      /** inbound texts that opt a contact back in (default START) */
      optInKeywords: keywordList.optional(),
      /** IANA time zone of the workspace's hours (auto-reply away hours, docs/automations.md) */
      timezone: z.string().trim().min(1).max(64).refine(isTimeZone, "is not a known IANA time zone").optional(),
    })
    .refine((b) => b.name !== undefined || b.require2fa !== undefined || b.optOutKeywords !== undefined || b.optInKeywords !== undefined || b.timezone !== undefined, {
      message: "give name, require2fa, optOutKeywords, optInKeywords or timezone",
      path: ["name"],
    }),
);
export type UpdateWorkspaceInput = z.infer<typeof updateWorkspaceBody>;

export interface WorkspaceView {
  id: string;
  name: string;
  planId: string;
  subscriptionStatus: string;
  require2fa: boolean;
  optOutKeywords: string[];
  optInKeywords: string[];
  timezone: string;
  createdAt: string;
}
