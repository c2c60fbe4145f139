import type { AppDeps } from "../../deps.ts";
import type { AppEvent, TransactionalSubscriber } from "../../events/bus.ts";
import { renderBody } from "../campaigns/variables.ts";
import { findContactByPhone, type ContactRow } from "../contacts/repo.ts";
import { hasEarlierInbound } from "../messages/repo.ts";
import { findWorkspace } from "../workspaces/repo.ts";
import { withinHours } from "./hours.ts";
import { REPLY_JOB, type ReplyJob } from "./job.ts";
import { activeAutomations, answeredSince, insertReply, type ActiveAutomation } from "./repo.ts";
import { TRIGGER_TYPES } from "./table.ts";

/** What the decision reads of message_received. */
interface Received {
  sessionId: string;
  from: string;
  messageId: string;
  text?: string;
  /** set on a group's messages */
  groupId?: string | null;
}

/**
 * The bus hook that decides, in the inbound message's transaction, whether an auto-reply
 * answers it. Its work runs in a savepoint: a decision that fails costs the message nothing.
 */
export function automationSubscriber(deps: AppDeps): TransactionalSubscriber {
  // synchronous for every other event (the bus awaits only a promise)
  return (e: AppEvent) => (e.event === "message_received" ? onReceived(e) : undefined);
  async function onReceived(e: AppEvent): Promise<void> {
    const d = e.data as unknown as Received;
    // a group is messaged only when named, and an automation names no group
    if (d.groupId) return;
    try {
      // most messages meet no automation: that read needs no savepoint
      const candidates = await candidatesFor(deps, e.workspaceId, d.sessionId);
      if (candidates.length) await deps.db.tx(() => decide(deps, e.workspaceId, d, candidates));
    } catch (err) {
      deps.log.error("auto-reply decision failed; the message is stored unanswered", { messageId: d.messageId, err });
    }
  }
}

/**
 * Picks at most one automation for an inbound message: keyword, then away, then welcome, the
 * oldest first within a kind, skipping one that answered this number within its cooldown.
 * Records the answer (the cooldown's memory) and enqueues the job that sends it.
 */
export async function decide(deps: AppDeps, workspaceId: string, d: Received, candidates?: ActiveAutomation[]): Promise<string | null> {
  candidates ??= await candidatesFor(deps, workspaceId, d.sessionId);
  if (candidates.length === 0) return null;
  const contact = await findContactByPhone(deps.db, workspaceId, d.from);
  if (contact?.optedOut) return null;
  const now = deps.clock.now().getTime();
  const facts = new Facts(deps, workspaceId, d, now);
  for (const type of TRIGGER_TYPES) {
    for (const a of candidates) {
      if (a.triggerType !== type || !(await facts.triggers(a))) continue;
      if (a.cooldownMinutes > 0 && (await answeredSince(deps.db, workspaceId, a.id, d.from, now - a.cooldownMinutes * 60_000))) continue;
      await insertReply(deps.db, workspaceId, { automationId: a.id, phone: d.from, inboundMessageId: d.messageId, at: now });
      const job: ReplyJob = {
        workspaceId,
        automationId: a.id,
        inboundMessageId: d.messageId,
        sessionId: d.sessionId,
        phone: d.from,
        decidedAt: now,
        reply: { type: a.reply.type, body: a.reply.body === null ? null : renderBody(a.reply.body, valuesOf(contact, d.from)), mediaId: "mediaId" in a.reply ? a.reply.mediaId : null },
      };
      await deps.jobs.enqueue(REPLY_JOB, job, { dedupeKey: `${REPLY_JOB}:${d.messageId}` });
      return a.id;
    }
  }
  return null;
}

/** The active automations that answer on the session. */
async function candidatesFor(deps: AppDeps, workspaceId: string, sessionId: string): Promise<ActiveAutomation[]> {
  return (await activeAutomations(deps.db, workspaceId)).filter((a) => !a.sessionIds || a.sessionIds.includes(sessionId));
}

function valuesOf(contact: ContactRow | undefined, phone: string) {
  return { name: contact?.name ?? null, pushName: contact?.pushName ?? null, phone, attributes: contact?.attributes ?? {} };
}

/** The facts a trigger asks about, each read once and only when asked. */
class Facts {
  private timezone: Promise<string> | undefined;
  private earlier: Promise<boolean> | undefined;
  private readonly text: string;

  constructor(
    private deps: AppDeps,
    private workspaceId: string,
    private d: Received,
    private now: number,
  ) {
    this.text = (d.text ?? "").trim().toLowerCase();
  }

  async triggers(a: ActiveAutomation): Promise<boolean> {
    const t = a.trigger;
    if (t.type === "keyword") {
      if (!this.text) return false;
      const words = t.keywords.map((k) => k.trim().toLowerCase());
      return t.match === "exact" ? words.includes(this.text) : words.some((k) => this.text.includes(k));
    }
    if (t.type === "away") {
      this.timezone ??= findWorkspace(this.deps.db, this.workspaceId).then((w) => w?.timezone ?? "UTC");
      return !withinHours(t.hours, this.now, await this.timezone);
    }
    this.earlier ??= hasEarlierInbound(this.deps.db, this.workspaceId, this.d.from, this.d.messageId);
    return !(await this.earlier);
  }
}
