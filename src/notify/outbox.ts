import { and, desc, eq } from "drizzle-orm";
import type { DB } from "../db/open.ts";
import { notifications, type NotifyChannel } from "./table.ts";

export interface NotificationRecord {
  medium: "email" | "mobile";
  channel: NotifyChannel;
  kind: string;
  recipient: string;
  subject?: string | null;
  /** only for the log channel */
  body?: string | null;
  status: "sent" | "failed";
  error?: string | null;
}

/** Writes one row of the notification record (docs/authentication.md). */
export async function recordNotification(db: DB, at: number, r: NotificationRecord): Promise<string> {
  const id = Bun.randomUUIDv7();
  await db
    .insert(notifications)
    .values({
      id,
      medium: r.medium,
      channel: r.channel,
      kind: r.kind,
      recipient: r.recipient,
      subject: r.subject ?? null,
      body: r.channel === "log" ? (r.body ?? null) : null,
      status: r.status,
      error: r.error ?? null,
      createdAt: at,
    })
    .run();
  return id;
}

export interface OutboxEntry {
  id: string;
  createdAt: string;
  medium: "email" | "mobile";
  to: string;
  kind: string;
  subject: string | null;
  text: string | null;
}

/** The log channel's messages, newest first: the operator's local outbox (`parley outbox`). */
export async function listOutbox(db: DB, opts: { to?: string; limit?: number } = {}): Promise<OutboxEntry[]> {
  const where = opts.to ? and(eq(notifications.channel, "log"), eq(notifications.recipient, opts.to)) : eq(notifications.channel, "log");
  const rows = await db
    .select()
    .from(notifications)
    .where(where)
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(opts.limit ?? 50)
    .all();
  return rows.map((n) => ({
    id: n.id,
    createdAt: new Date(n.createdAt).toISOString(),
    medium: n.medium,
    to: n.recipient,
    kind: n.kind,
    subject: n.subject,
    text: n.body,
  }));
}
