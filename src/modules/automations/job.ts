import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { defaultBackoff, PermanentJobError, type JobHandler } from "../../jobs/queue.ts";
import { findContactByPhone } from "../contacts/repo.ts";
import type { SendBody } from "../messages/model.ts";
import { acceptSend } from "../messages/service.ts";

export const REPLY_JOB = "automations.reply";

/** An answer decided in an inbound message's transaction, its text already filled for the contact. */
export interface ReplyJob {
  workspaceId: string;
  automationId: string;
  inboundMessageId: string;
  sessionId: string;
  phone: string;
  reply: { type: "text" | "image" | "document" | "audio" | "video"; body: string | null; mediaId: string | null };
}

/** The idempotency key of an answer: one per inbound message and automation, so a job run twice (a crash before it was marked done) queues one message. */
export const replyKey = (j: Pick<ReplyJob, "inboundMessageId" | "automationId">) => `automation:${j.inboundMessageId}:${j.automationId}`;

/**
 * Queues the answer as an ordinary outbound message that carries `automationId`, unless the
 * contact opted out meanwhile. A session that is not connected is tried again later; a session,
 * media or plan that refuses the send gives the answer up.
 */
export async function sendReply(deps: AppDeps, j: ReplyJob): Promise<string | null> {
  if ((await findContactByPhone(deps.db, j.workspaceId, j.phone))?.optedOut) return null;
  const input = { session_id: j.sessionId, to: j.phone, type: j.reply.type, ...(j.reply.body !== null ? { body: j.reply.body } : {}), ...(j.reply.mediaId ? { mediaId: j.reply.mediaId } : {}) } as SendBody;
  try {
    const { data } = await acceptSend(deps, { workspaceId: j.workspaceId, actorId: j.automationId }, input, replyKey(j), { automationId: j.automationId });
    return data.id;
  } catch (err) {
    if (err instanceof AppError && err.code !== "CHATAPP_UNAVAILABLE" && err.code !== "INTERNAL_ERROR") {
      deps.log.warn("auto-reply not sent", { automationId: j.automationId, inboundMessageId: j.inboundMessageId, code: err.code, reason: err.message });
      throw new PermanentJobError(`${err.code}: ${err.message}`);
    }
    throw err;
  }
}

export function replyJobHandler(deps: AppDeps): JobHandler<ReplyJob> {
  return {
    kind: REPLY_JOB,
    // a disconnected session is waited for about an hour and a half, then the answer is dropped
    maxAttempts: 200,
    backoffMs: (attempt) => Math.min(30_000, defaultBackoff(attempt)),
    run: async (j) => void (await sendReply(deps, j)),
  };
}
