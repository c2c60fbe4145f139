import { z } from "zod";
import { lazySchema } from "../../http/lazy-schema.ts";
import { firstUse } from "../../memo.ts";
import { variableErrors } from "../campaigns/variables.ts";
import { WEEKDAYS, type Reply, type Trigger } from "./table.ts";

const HHMM = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;
/** "HH:MM" as minutes of the day. */
export const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * The pieces the bodies are made of, built with the first body (see lazySchema): zod builds
 * each piece's objects when it is declared, and these were the largest share of the schemas
 * every start built for nothing.
 */
const parts = firstUse(buildParts);

function buildParts() {
  const hoursRange = z
    .object({ from: z.string().regex(HHMM, "must be HH:MM (00:00 to 23:59)"), to: z.string().regex(HHMM, "must be HH:MM (00:01 to 24:00)") })
    .refine((r) => minutesOf(r.from) < minutesOf(r.to), { message: "must end after it starts (split a range that passes midnight over two days)", path: ["to"] });

  const weekHours = z
    .object(Object.fromEntries(WEEKDAYS.map((d) => [d, z.array(hoursRange).max(8, "at most 8 ranges a day").optional()])) as Record<(typeof WEEKDAYS)[number], z.ZodOptional<z.ZodArray<typeof hoursRange>>>)
    .strict();

  const keyword = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");

  const trigger = z.discriminatedUnion("type", [
    z.object({
      type: z.literal("keyword"),
      keywords: z.array(keyword).min(1, "give at least one keyword").max(50, "at most 50 keywords"),
      match: z.enum(["exact", "contains"]).default("exact"),
    }),
    z.object({ type: z.literal("welcome") }),
    z.object({ type: z.literal("away"), hours: weekHours }),
  ]);

  const MEDIA_TYPES = ["image", "document", "audio", "video"] as const;

  const reply = z
    .object({
      type: z.enum(["text", ...MEDIA_TYPES]).default("text"),
      /** the text, or the caption of media; variables as in campaigns ({{name}}, {{phone}}, {{attributes.KEY}}) */
      body: z.string().max(4096, "must be at most 4096 characters").optional(),
      /** stored media (POST /api/v1/media) for a media reply */
      mediaId: z.uuid("must be a media id").optional(),
    })
    .superRefine((r, ctx) => {
      if (r.type === "text" && !r.body?.trim()) ctx.addIssue({ code: "custom", path: ["body"], message: "is required for a text reply" });
      if (r.type === "text" && r.mediaId) ctx.addIssue({ code: "custom", path: ["mediaId"], message: "is only for media replies (set type)" });
      if (r.type !== "text" && !r.mediaId) ctx.addIssue({ code: "custom", path: ["mediaId"], message: `is required for a ${r.type} reply` });
      for (const problem of variableErrors(r.body ?? "").slice(0, 1)) ctx.addIssue({ code: "custom", path: ["body"], message: problem });
    });

  const name = z.string().trim().min(1, "is required").max(100, "must be at most 100 characters");
  const sessionIds = z.array(z.uuid("must be session ids")).min(1, "give at least one session, or leave it out for every session").max(100).nullable();
  const cooldownMinutes = z.number().int("must be a whole number of minutes").min(0, "must be 0 or more").max(43_200, "must be at most 43200 (30 days)");
  return { trigger, reply, name, sessionIds, cooldownMinutes };
}
type Parts = ReturnType<typeof buildParts>;

export const createAutomationBody = lazySchema(() => {
  const { name, trigger, reply, sessionIds, cooldownMinutes } = parts();
  return z.object({ name, trigger, reply, sessionIds: sessionIds.optional(), cooldownMinutes: cooldownMinutes.default(60), isActive: z.boolean().default(true) });
});
export type CreateAutomationInput = z.infer<typeof createAutomationBody>;

export const updateAutomationBody = lazySchema(() => {
  const { name, trigger, reply, sessionIds, cooldownMinutes } = parts();
  return z
    .object({ name: name.optional(), trigger: trigger.optional(), reply: reply.optional(), sessionIds: sessionIds.optional(), cooldownMinutes: cooldownMinutes.optional(), isActive: z.boolean().optional() })
    .refine((b) => Object.values(b).some((v) => v !== undefined), { message: "give at least one of name, trigger, reply, sessionIds, cooldownMinutes, isActive", path: ["body"] });
});
export type UpdateAutomationInput = z.infer<typeof updateAutomationBody>;

export const automationParams = lazySchema(() => z.object({ id: z.uuid("must be a UUID") }));


/** The stored form of a parsed trigger: keywords kept as written (matched trimmed, in any case). */
export function storedTrigger(t: z.infer<Parts["trigger"]>): Trigger {
  if (t.type === "keyword") return { type: "keyword", keywords: [...new Set(t.keywords)], match: t.match };
  if (t.type === "away") return { type: "away", hours: t.hours };
  return { type: "welcome" };
}

/** The stored form of a parsed reply. */
export function storedReply(r: z.infer<Parts["reply"]>): Reply {
  if (r.type === "text") return { type: "text", body: r.body! };
  return { type: r.type, mediaId: r.mediaId!, body: r.body?.trim() ? r.body : null };
}

/** The API shape of an automation. */
export interface AutomationView {
  id: string;
  name: string;
  trigger: Trigger;
  reply: Reply;
  sessionIds: string[] | null;
  cooldownMinutes: number;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}
