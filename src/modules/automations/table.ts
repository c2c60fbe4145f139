import { index, integer, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

/** Trigger kinds, in the order they are tried on an inbound message. */
export const TRIGGER_TYPES = ["keyword", "away", "welcome"] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** One from-to range of a day, "HH:MM" (to may be "24:00"). */
export interface HoursRange {
  from: string;
  to: string;
}

export type Trigger =
  | { type: "keyword"; keywords: string[]; match: "exact" | "contains" }
  | { type: "welcome" }
  | { type: "away"; hours: Partial<Record<Weekday, HoursRange[]>> };

/** What an automation answers: a text (variables allowed) or stored media with an optional caption. */
export type Reply = { type: "text"; body: string } | { type: "image" | "document" | "audio" | "video"; mediaId: string; body: string | null };

/** An auto-reply of a workspace (docs/automations.md). Times are unix ms. */
export const automations = sqliteTable(
  "automations",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    triggerType: text("trigger_type", { enum: TRIGGER_TYPES }).notNull(),
    trigger: text("trigger", { mode: "json" }).$type<Trigger>().notNull(),
    reply: text("reply", { mode: "json" }).$type<Reply>().notNull(),
    /** the sessions it answers on; null: every session of the workspace */
    sessionIds: text("session_ids", { mode: "json" }).$type<string[] | null>(),
    cooldownMinutes: integer("cooldown_minutes").notNull().default(60),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdBy: text("created_by"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [index("automations_ws_active_idx").on(t.workspaceId, t.isActive, t.id)],
);

/**
 * The answers decided: one row per inbound message answered (at most one each), written in the
 * inbound message's transaction. The cooldown reads the latest row of an automation and number.
 */
export const automationReplies = sqliteTable(
  "automation_replies",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    // no foreign key: the record of an answer outlives a deleted automation
    automationId: text("automation_id").notNull(),
    phone: text("phone").notNull(),
    inboundMessageId: text("inbound_message_id").notNull(),
    createdAt: integer("created_at").notNull(),
  }),
  (t) => [
    uniqueIndex("automation_replies_inbound_idx").on(t.workspaceId, t.inboundMessageId),
    index("automation_replies_cooldown_idx").on(t.workspaceId, t.automationId, t.phone, t.createdAt),
  ],
);
