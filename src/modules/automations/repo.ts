import { and, asc, desc, eq, gt } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { groupOnce } from "../../db/group-memo.ts";
import { oncePer } from "../../db/prepared.ts";
import { automationReplies, automations } from "./table.ts";

export type AutomationRow = typeof automations.$inferSelect;

/** Every automation of a workspace, oldest first. */
export async function listAutomations(db: DB, workspaceId: string): Promise<AutomationRow[]> {
  return db.select().from(automations).where(eq(automations.workspaceId, workspaceId)).orderBy(asc(automations.id)).all();
}

/** What the decision on an inbound message reads of an automation. */
export type ActiveAutomation = Pick<AutomationRow, "id" | "triggerType" | "trigger" | "reply" | "sessionIds" | "cooldownMinutes">;

// read on every inbound message, so a raw statement prepared once per store: drizzle's prepared
// select with its JSON columns cost ~75 µs a call here, this ~4 µs when the workspace has none.
// No ORDER BY: on SQLite it cost 2-5 µs a call more even with no row to sort (the index gives
// the order, the statement still set up for it); the few rows are sorted here.
const activeStmt = oncePer((db: DB) =>
  db.prepare<{ id: string; triggerType: string; trigger: string; reply: string; sessionIds: string | null; cooldownMinutes: number }>(
    `SELECT id, trigger_type AS "triggerType", trigger, reply, session_ids AS "sessionIds", cooldown_minutes AS "cooldownMinutes"
     FROM automations WHERE workspace_id = ? AND is_active = 1`,
  ),
);

/** Oldest first: ids are UUIDv7 (time-ordered, ASCII), so code-unit order is the database's binary order. */
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The active automations of a workspace, oldest first (the order ties are broken in). Read once
 * per group commit of inbound messages (nothing there changes automations).
 */
export async function activeAutomations(db: DB, workspaceId: string): Promise<ActiveAutomation[]> {
  return groupOnce(`automations.active\u0000${workspaceId}`, () => readActive(db, workspaceId));
}

async function readActive(db: DB, workspaceId: string): Promise<ActiveAutomation[]> {
  const rows = await activeStmt(db).all(workspaceId);
  if (rows.length > 1) rows.sort(byId);
  return rows.map((r) => ({
    id: r.id,
    triggerType: r.triggerType as ActiveAutomation["triggerType"],
    trigger: JSON.parse(r.trigger),
    reply: JSON.parse(r.reply),
    sessionIds: r.sessionIds === null ? null : JSON.parse(r.sessionIds),
    cooldownMinutes: Number(r.cooldownMinutes),
  }));
}

/** One automation of the workspace, or null (also for another workspace's id). */
export async function getAutomation(db: DB, workspaceId: string, id: string): Promise<AutomationRow | null> {
  return (await db.select().from(automations).where(and(eq(automations.workspaceId, workspaceId), eq(automations.id, id))).get()) ?? null;
}

export async function insertAutomation(db: DB, workspaceId: string, row: Omit<typeof automations.$inferInsert, "workspaceId">): Promise<void> {
  await db.insert(automations).values({ ...row, workspaceId }).run();
}

/** Applies a change; returns false when the automation is not in the workspace. */
export async function updateAutomation(db: DB, workspaceId: string, id: string, change: Partial<typeof automations.$inferInsert>): Promise<boolean> {
  const r = await db
    .update(automations)
    .set(change)
    .where(and(eq(automations.workspaceId, workspaceId), eq(automations.id, id)))
    .returning({ id: automations.id })
    .all();
  return r.length > 0;
}

export async function deleteAutomation(db: DB, workspaceId: string, id: string): Promise<boolean> {
  const r = await db.delete(automations).where(and(eq(automations.workspaceId, workspaceId), eq(automations.id, id))).returning({ id: automations.id }).all();
  return r.length > 0;
}

/** Whether the automation answered this number after `since` (its cooldown). */
export async function answeredSince(db: DB, workspaceId: string, automationId: string, phone: string, since: number): Promise<boolean> {
  const row = await db
    .select({ id: automationReplies.id })
    .from(automationReplies)
    .where(and(eq(automationReplies.workspaceId, workspaceId), eq(automationReplies.automationId, automationId), eq(automationReplies.phone, phone), gt(automationReplies.createdAt, since)))
    .orderBy(desc(automationReplies.createdAt))
    .limit(1)
    .get();
  return !!row;
}

/** Records the answer decided for an inbound message (at most one per message: a unique index). */
export async function insertReply(db: DB, workspaceId: string, row: { automationId: string; phone: string; inboundMessageId: string; at: number }): Promise<void> {
  await db
    .insert(automationReplies)
    .values({ id: Bun.randomUUIDv7(), workspaceId, automationId: row.automationId, phone: row.phone, inboundMessageId: row.inboundMessageId, createdAt: row.at })
    .run();
}
