import { countCampaignSend } from "./send-metric.ts";
import type { AppDeps } from "../../deps.ts";
import { touchConversation } from "../inbox/repo.ts";
import { monthOf } from "../messages/service.ts";
import { insertMessage } from "../messages/repo.ts";
import { addUsage } from "../messages/usage-repo.ts";
import { isLidAddress } from "../messages/recipient.ts";
import { enqueueSender } from "../messages/sender.ts";
import type { CampaignMessage } from "./model.ts";
import { countsMoved, moveCounter } from "./progress.ts";
import type { EngineRow } from "./repo.ts";
import { renderBody } from "./variables.ts";

type Deps = Pick<AppDeps, "db" | "sqlite" | "bus" | "clock" | "jobs">;

/** Queued campaign messages a session holds at most: a one-off send waits behind no more than these. */
export const WINDOW_PER_SESSION = 2;
/** Opted-out recipients skipped in one go before the turn passes on (bounds one transaction). */
const MAX_SKIPS = 500;

interface Todo {
  id: string;
  contactId: string | null;
  phone: string;
}

interface ContactFacts {
  name: string | null;
  pushName: string | null;
  optedOut: number;
  attributes?: string | null;
}

/**
 * Queued campaign messages of a session that the sender may take (not those a paused campaign
 * holds: they must not take the window from another campaign). The rule of messages/repo.ts.
 */
export function windowUsed(deps: Pick<AppDeps, "sqlite">, workspaceId: string, sessionId: string): number {
  const r = deps.sqlite
    // the session's queue index holds only queued messages: a few rows, whatever the history
    .query(
      `SELECT count(*) AS n FROM messages m INDEXED BY messages_queue_idx WHERE m.workspace_id = ? AND m.session_id = ? AND m.status = 'queued'
       AND m.campaign_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM campaigns k WHERE k.id = m.campaign_id AND k.status IN ('paused', 'scheduled'))`,
    )
    .get(workspaceId, sessionId) as { n: number };
  return r.n;
}

/** Campaign messages a session was given on a UTC day. */
export function sentOnDay(deps: Pick<AppDeps, "sqlite">, sessionId: string, day: string): number {
  const r = deps.sqlite.query("SELECT count FROM campaign_send_days WHERE session_id = ? AND day = ?").get(sessionId, day) as { count: number } | null;
  return r?.count ?? 0;
}

/** The contact's attributes, whichever way the contacts module keeps them. */
function attributesOf(c: ContactFacts): Record<string, string> {
  if (typeof c.attributes === "string" && c.attributes) {
    try {
      return JSON.parse(c.attributes) as Record<string, string>;
    } catch {
      return {};
    }
  }
  return {};
}

/**
 * Gives the campaign's next pending recipient a message on a session, in the caller's
 * transaction: the message row (queued, counted in the monthly quota, with the session's
 * sender job) and the recipient's `messageId` commit together, so a restart can never make a
 * second message for the recipient. Recipients who opted out meanwhile are skipped on the way.
 * Returns "sent" when a message was queued, "empty" when nobody is left to give one, "skipped"
 * when this turn only skipped opted-out recipients.
 */
export function dispatchNext(deps: Deps, c: EngineRow, session: { id: string; phoneNumber: string | null }, at: number): "sent" | "skipped" | "empty" {
  const ws = c.workspaceId;
  const next = deps.sqlite.query(
    "SELECT id, contact_id AS contactId, phone FROM campaign_recipients WHERE campaign_id = ? AND status = 'pending' AND message_id IS NULL ORDER BY id LIMIT 1",
  );
  const contactQ = deps.sqlite.query("SELECT * FROM contacts WHERE workspace_id = ? AND id = ?");
  let skipped = 0;
  try {
    for (let i = 0; i < MAX_SKIPS; i++) {
      const r = next.get(c.id) as Todo | null;
      if (!r) return "empty";
      const raw = r.contactId ? (contactQ.get(ws, r.contactId) as Record<string, unknown> | null) : null;
      const contact: ContactFacts | null = raw
        ? { name: raw.name as string | null, pushName: raw.push_name as string | null, optedOut: Number(raw.opted_out ?? 0), attributes: raw.attributes as string | null }
        : null;
      // a contact deleted since the start (an erasure request) is not messaged either
      const skip = contact?.optedOut ? "opted_out" : r.contactId && !raw ? "contact_deleted" : null;
      if (skip) {
        deps.sqlite
          .query("UPDATE campaign_recipients SET status = 'skipped', skipped_reason = ?, updated_at = ? WHERE id = ? AND status = 'pending' AND message_id IS NULL")
          .run(skip, at, r.id);
        moveCounter(deps, c.id, "pending", "skipped");
        countCampaignSend(deps.sqlite, r.id, "skipped");
        skipped++;
        continue;
      }
      const message = c.message as CampaignMessage;
      const body = message.body
        ? renderBody(message.body, {
            name: contact?.name ?? null,
            pushName: contact?.pushName ?? null,
            // a LID (`<digits>@lid`) is the network's stand-in for a hidden number: {{phone}} takes its default
            phone: isLidAddress(r.phone) ? "" : r.phone,
            attributes: contact ? attributesOf(contact) : {},
          })
        : null;
      const id = Bun.randomUUIDv7();
      const conversationId = touchConversation(deps.db, ws, { sessionId: session.id, phone: r.phone, contactId: r.contactId, messageId: id, at, inbound: false });
      insertMessage(deps.db, ws, {
        id,
        sessionId: session.id,
        conversationId,
        direction: "outbound",
        phone: r.phone,
        sessionPhone: session.phoneNumber,
        type: message.type,
        body,
        mediaId: c.mediaId,
        status: "queued",
        createdBy: c.createdBy,
        campaignId: c.id,
        createdAt: at,
        updatedAt: at,
      });
      addUsage(deps.db, ws, monthOf(at), 1);
      deps.sqlite
        .query(
          `INSERT INTO campaign_send_days (workspace_id, session_id, day, count) VALUES (?, ?, ?, 1)
           ON CONFLICT (session_id, day) DO UPDATE SET count = count + 1`,
        )
        .run(ws, session.id, new Date(at).toISOString().slice(0, 10));
      const marked = deps.sqlite
        .query("UPDATE campaign_recipients SET message_id = ?, session_id = ?, updated_at = ? WHERE id = ? AND status = 'pending' AND message_id IS NULL")
        .run(id, session.id, at, r.id);
      // the scan and the mark are in one transaction: this cannot miss, and if it ever did the whole change rolls back
      if (marked.changes !== 1) throw new Error(`recipient ${r.id} was taken twice`);
      enqueueSender(deps, ws, session.id);
      return "sent";
    }
    return "skipped"; // only skips this time: the turn passes, the next tick goes on
  } finally {
    if (skipped) countsMoved(deps, ws, c.id);
  }
}
