import { countCampaignSend } from "./send-metric.ts";
import type { AppDeps } from "../../deps.ts";
import { numberChecker } from "../numbers/checker.ts";
import { touchConversation } from "../inbox/repo.ts";
import { monthOf } from "../messages/service.ts";
import { insertMessage } from "../messages/repo.ts";
import { addUsage } from "../messages/usage-repo.ts";
import { isLidAddress } from "../messages/recipient.ts";
import { enqueueSender } from "../messages/sender.ts";
import { freshCheck } from "../numbers/repo.ts";
import type { CampaignMessage } from "./model.ts";
import { countsMoved, moveCounter } from "./progress.ts";
import type { EngineRow } from "./repo.ts";
import { renderBody } from "./variables.ts";

type Deps = Pick<AppDeps, "db" | "bus" | "clock" | "jobs">;

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

const WINDOW_SQL = `SELECT count(*) AS n FROM messages m INDEXED BY messages_queue_idx WHERE m.workspace_id = ? AND m.session_id = ? AND m.status = 'queued'
       AND m.campaign_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM campaigns k WHERE k.id = m.campaign_id AND k.status IN ('paused', 'scheduled'))`;

/**
 * Queued campaign messages of a session that the sender may take (not those a paused campaign
 * holds: they must not take the window from another campaign). The rule of messages/repo.ts.
 */
export async function windowUsed(deps: Pick<AppDeps, "db">, workspaceId: string, sessionId: string): Promise<number> {
  // the session's queue index holds only queued messages: a few rows, whatever the history
  // (SQLite is told to use it; PostgreSQL has no index hints and picks it by itself)
  const text = deps.db.engine === "postgres" ? WINDOW_SQL.replace(" INDEXED BY messages_queue_idx", "") : WINDOW_SQL;
  const r = await deps.db.prepare<{ n: number }>(text).get(workspaceId, sessionId);
  return Number(r?.n ?? 0);
}

/** Campaign messages a session was given on a UTC day. */
export async function sentOnDay(deps: Pick<AppDeps, "db">, sessionId: string, day: string): Promise<number> {
  const r = await deps.db.prepare<{ count: number }>("SELECT count FROM campaign_send_days WHERE session_id = ? AND day = ?").get(sessionId, day);
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

/** Numbers asked about in one question to the network (its limit). */
export const PRECHECK_BATCH = 50;
/** A question is asked when one of this many next recipients has no fresh answer. */
const PRECHECK_NEAR = 10;

/**
 * Asks the network, ahead of their turn, about the next pending recipients whose numbers it
 * has no fresh answer for: when one of the next PRECHECK_NEAR has none, one batched question
 * about up to PRECHECK_BATCH unanswered numbers among the next 2 x PRECHECK_BATCH, through one
 * of the campaign's connected sessions. dispatchNext then skips the absent ones as
 * `not_on_network`. A campaign of 10,000 recipients asks about 200 times, not 10,000 (and not
 * again within a day). Outside any transaction; a failure only means the sender checks each
 * number itself.
 */
export async function precheckRecipients(deps: Deps & Pick<AppDeps, "network" | "log">, workspaceId: string, campaignId: string, sessionIds: string[]): Promise<void> {
  const checker = numberChecker(deps);
  if (!checker.supported) return;
  const connected = deps.db.prepare<{ id: string }>("SELECT id FROM chat_sessions WHERE workspace_id = ? AND id = ? AND status = 'connected'");
  let session: { id: string } | undefined;
  for (const id of sessionIds) if ((session = await connected.get(workspaceId, id))) break;
  if (!session) return;
  const next = (
    await deps.db
      .prepare<{ phone: string }>("SELECT phone FROM campaign_recipients WHERE campaign_id = ? AND status = 'pending' AND message_id IS NULL ORDER BY id LIMIT ?")
      .all(campaignId, 2 * PRECHECK_BATCH)
  ).map((r) => r.phone);
  const cached = await checker.cached(workspaceId, next.filter((p) => !isLidAddress(p)));
  const unanswered = (p: string) => !isLidAddress(p) && !cached.has(p);
  if (!next.slice(0, PRECHECK_NEAR).some(unanswered)) return;
  try {
    await checker.check(workspaceId, session.id, next.filter(unanswered).slice(0, PRECHECK_BATCH));
  } catch (err) {
    deps.log.debug("campaign recipients not checked ahead; the sender checks them", { campaignId, err });
  }
}

/**
 * Gives the campaign's next pending recipient a message on a session, in the caller's
 * transaction (`db.tx`): the message row (queued, counted in the monthly quota, with the session's
 * sender job) and the recipient's `messageId` commit together, so a restart can never make a
 * second message for the recipient. Recipients who opted out meanwhile are skipped on the way.
 * Returns "sent" when a message was queued, "empty" when nobody is left to give one, "skipped"
 * when this turn only skipped opted-out recipients.
 */
export async function dispatchNext(deps: Deps, c: EngineRow, session: { id: string; phoneNumber: string | null }, at: number): Promise<"sent" | "skipped" | "empty"> {
  const ws = c.workspaceId;
  const next = deps.db.prepare<Todo>(
    `SELECT id, contact_id AS "contactId", phone FROM campaign_recipients WHERE campaign_id = ? AND status = 'pending' AND message_id IS NULL ORDER BY id LIMIT 1`,
  );
  const contactQ = deps.db.prepare<ContactFacts>(
    `SELECT name, push_name AS "pushName", opted_out AS "optedOut", attributes FROM contacts WHERE workspace_id = ? AND id = ?`,
  );
  let skipped = 0;
  try {
    for (let i = 0; i < MAX_SKIPS; i++) {
      const r = await next.get(c.id);
      if (!r) return "empty";
      const contact = r.contactId ? await contactQ.get(ws, r.contactId) : undefined;
      // a contact deleted since the start (an erasure request) is not messaged either; a number
      // the network said it does not have (checked ahead, see precheckRecipients) is not queued
      const skip =
        contact && Number(contact.optedOut)
          ? "opted_out"
          : r.contactId && !contact
            ? "contact_deleted"
            : !isLidAddress(r.phone) && (await freshCheck(deps.db, ws, r.phone, at)) === false
              ? "not_on_network"
              : null;
      if (skip) {
        await deps.db
          .prepare("UPDATE campaign_recipients SET status = 'skipped', skipped_reason = ?, updated_at = ? WHERE id = ? AND status = 'pending' AND message_id IS NULL")
          .run(skip, at, r.id);
        await moveCounter(deps, c.id, "pending", "skipped");
        countCampaignSend(deps.db, "skipped");
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
      const conversationId = await touchConversation(deps.db, ws, { sessionId: session.id, phone: r.phone, contactId: r.contactId, messageId: id, at, inbound: false, campaign: true });
      await insertMessage(deps.db, ws, {
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
      await addUsage(deps.db, ws, monthOf(at), 1);
      await deps.db
        .prepare(
          `INSERT INTO campaign_send_days (workspace_id, session_id, day, count) VALUES (?, ?, ?, 1)
           ON CONFLICT (session_id, day) DO UPDATE SET count = campaign_send_days.count + 1`,
        )
        .run(ws, session.id, new Date(at).toISOString().slice(0, 10));
      const marked = await deps.db
        .prepare("UPDATE campaign_recipients SET message_id = ?, session_id = ?, updated_at = ? WHERE id = ? AND status = 'pending' AND message_id IS NULL")
        .run(id, session.id, at, r.id);
      // the scan and the mark are in one transaction: this cannot miss, and if it ever did the whole change rolls back
      if (marked.changes !== 1) throw new Error(`recipient ${r.id} was taken twice`);
      await enqueueSender(deps, ws, session.id);
      return "sent";
    }
    return "skipped"; // only skips this time: the turn passes, the next tick goes on
  } finally {
    if (skipped) await countsMoved(deps, ws, c.id);
  }
}
