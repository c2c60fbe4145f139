import type { TestApp } from "../../helpers/app.ts";

export interface MessageSeed {
  sessionId: string;
  conversationId: string;
  direction: "inbound" | "outbound";
  at: number;
  type?: string;
  status?: string;
  sentAt?: number | null;
  deliveredAt?: number | null;
  readAt?: number | null;
  campaignId?: string | null;
}

/** Inserts a message straight into the table with the given times (ids in insertion order). */
export async function seedMessage(t: TestApp, workspaceId: string, m: MessageSeed): Promise<string> {
  const id = Bun.randomUUIDv7();
  const status = m.status ?? (m.direction === "inbound" ? "received" : m.readAt ? "read" : m.deliveredAt ? "delivered" : "sent");
  const sentAt = m.direction === "outbound" && status !== "failed" ? (m.sentAt ?? m.at) : null;
  const insert = () => t.deps.db
    .prepare(
      `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, campaign_id,
         created_at, sent_at, delivered_at, read_at, failed_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, workspaceId, m.sessionId, m.conversationId, m.direction, "919800011111", m.type ?? "text", "hi", status, m.campaignId ?? null,
      m.at, sentAt, m.deliveredAt ?? null, m.readAt ?? null, status === "failed" ? m.at : null, m.at);
  // inserted by hand, not through the messages repo (the search index follows by itself)
  await insert();
  // ids of the same millisecond still order by insertion; a pause keeps them apart anyway
  await Bun.sleep(1);
  return id;
}
