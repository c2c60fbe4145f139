import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";
import { WEEKDAYS } from "./table.ts";

// The automation routes' response shapes, for the OpenAPI document only (docSchema).

const range = () => z.object({ from: z.string().describe("HH:MM"), to: z.string().describe("HH:MM, 24:00 for the end of the day") });

const automation = () =>
  z.object({
    id: z.uuid(),
    name: z.string(),
    trigger: z.union([
      z.object({ type: z.literal("keyword"), keywords: z.array(z.string()), match: z.enum(["exact", "contains"]) }),
      z.object({ type: z.literal("welcome") }),
      z.object({
        type: z.literal("away"),
        hours: z.object(Object.fromEntries(WEEKDAYS.map((d) => [d, z.array(range()).optional()]))).describe("working hours per weekday in the workspace's time zone; a day left out is closed"),
      }),
    ]),
    reply: z.union([
      z.object({ type: z.literal("text"), body: z.string() }),
      z.object({ type: z.enum(["image", "document", "audio", "video"]), mediaId: z.uuid(), body: z.string().nullable().describe("caption") }),
    ]),
    sessionIds: z.array(z.uuid()).nullable().describe("null: every session"),
    cooldownMinutes: z.number().int(),
    isActive: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  });

export const automationDoc = docSchema(automation);
export const automationsDoc = docSchema(() => z.array(automation()));
