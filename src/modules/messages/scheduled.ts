import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { JobHandler } from "../../jobs/queue.ts";
import { publishConversationUpdated } from "../inbox/service.ts";
import { findMessage } from "./repo.ts";
import type { SendBody } from "./model.ts";
import type { SendAnswer } from "./send-answer.ts";
import { ensureConversation, insertScheduledMessage, moveLastMessage, type SendSession } from "./send-repo.ts";
import { enqueueSender } from "./sender.ts";
import type { SendGroup } from "./send-batch.ts";
import { addUsage } from "./usage-repo.ts";

// Scheduled sends (docs/messages.md): a send with `sendAt` is stored as `scheduled` with a
// durable job that runs at that time and queues it; the job is a row of the jobs table, so it
// survives restarts. DELETE /api/v1/messages/{id} cancels the send while it is still scheduled.
// Each step (scheduled, cancelled, queued at its time) sends conversation_updated to the
// workspace's dashboards, so every open thread of the conversation shows it at once.

export const SCHEDULED_JOB = "messages.scheduled";
interface ScheduledPayload {
  workspaceId: string;
  messageId: string;
}

/** Stores a scheduled send and its job (inside the send's transaction). */
export async function scheduleSend(
  deps: Pick<AppDeps, "db" | "jobs">,
  group: SendGroup,
  ws: string,
  s: { id: string; session: SendSession; input: SendBody; mediaId: string | null; createdBy: string; sendAt: number; at: number },
): Promise<SendAnswer> {
  const conversationId = await ensureConversation(deps.db, ws, { sessionId: s.session.id, phone: s.input.to, messageId: s.id, at: s.at });
  await insertScheduledMessage(deps.db, ws, {
    id: s.id,
    sessionId: s.session.id,
    conversationId,
    phone: s.input.to,
    sessionPhone: s.session.phoneNumber,
    type: s.input.type,
    body: s.input.body ?? null,
    mediaId: s.mediaId,
    createdBy: s.createdBy,
    sendAt: s.sendAt,
    at: s.at,
  });
  await deps.jobs.enqueue(SCHEDULED_JOB, { workspaceId: ws, messageId: s.id } satisfies ScheduledPayload, { runAt: new Date(s.sendAt), dedupeKey: `${SCHEDULED_JOB}:${s.id}` });
  return { id: s.id, status: "scheduled", sessionId: s.session.id, to: s.input.to, type: s.input.type, createdAt: new Date(s.at).toISOString(), sendAt: new Date(s.sendAt).toISOString() };
}

/**
 * Tells the workspace's dashboards that a scheduled send was stored: conversation_updated with
 * its conversation. Runs after the send committed, in a transaction of its own (a send's group
 * transaction publishes no events: see send-batch.ts).
 */
export async function announceScheduled(deps: Pick<AppDeps, "db" | "clock" | "bus">, workspaceId: string, messageId: string): Promise<void> {
  await deps.db.tx(async () => {
    const m = await findMessage(deps.db, workspaceId, messageId);
    if (m) await publishConversationUpdated(deps, workspaceId, m.conversationId);
  });
}

/**
 * The job that queues a scheduled send at its time: `scheduled` becomes `queued` (the sender
 * takes it from there, as any send) and the message becomes its conversation's last. A send
 * cancelled meanwhile is left alone.
 */
export function scheduledHandler(deps: Pick<AppDeps, "db" | "jobs" | "clock" | "bus">): JobHandler<ScheduledPayload> {
  return {
    kind: SCHEDULED_JOB,
    async run({ workspaceId, messageId }) {
      await deps.db.tx(async () => {
        const at = deps.clock.now().getTime();
        const moved = await deps.db
          .prepare("UPDATE messages SET status = 'queued', updated_at = ? WHERE workspace_id = ? AND id = ? AND status = 'scheduled'")
          .run(at, workspaceId, messageId);
        if (!moved.changes) return;
        const m = (await findMessage(deps.db, workspaceId, messageId))!;
        await moveLastMessage(deps.db, workspaceId, m.conversationId, { messageId, maxAt: at, at });
        await enqueueSender(deps, workspaceId, m.sessionId);
        await publishConversationUpdated(deps, workspaceId, m.conversationId);
      });
    },
  };
}

/**
 * Cancels a scheduled send: `cancelled`, and the month's usage gets it back (and
 * conversation_updated tells the dashboards). 404 when the
 * message is not the workspace's; 409 once it left `scheduled` (queued, sent, cancelled).
 */
export async function cancelScheduled(deps: Pick<AppDeps, "db" | "clock" | "bus">, workspaceId: string, id: string): Promise<void> {
  await deps.db.tx(async () => {
    const m = await findMessage(deps.db, workspaceId, id);
    if (!m) throw errors.notFound("Message");
    const at = deps.clock.now().getTime();
    const done = await deps.db
      .prepare("UPDATE messages SET status = 'cancelled', updated_at = ? WHERE workspace_id = ? AND id = ? AND status = 'scheduled'")
      .run(at, workspaceId, id);
    if (!done.changes) throw errors.conflict(`Message is ${m.status}: only a scheduled message can be cancelled`);
    await addUsage(deps.db, workspaceId, new Date(m.createdAt).toISOString().slice(0, 7), -1);
    await publishConversationUpdated(deps, workspaceId, m.conversationId);
  });
}
