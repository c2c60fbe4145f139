import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { PermanentJobError, RetryLaterError, type JobHandler } from "../../jobs/queue.ts";
import { findContactByPhone } from "../contacts/repo.ts";
import type { SendBody } from "../messages/model.ts";
import { acceptSend } from "../messages/service.ts";

export const REPLY_JOB = "automations.reply";
/** How long an answer waits for its session to be connected, looking every RECHECK_MS. */
const WAIT_MS = 2 * 3600_000;
const RECHECK_MS = 3000;

/** An answer decided in an inbound message's transaction, its text already filled for the contact. */
export interface ReplyJob {
  workspaceId: string;
  automationId: string;
  inboundMessageId: string;
  sessionId: string;
  phone: string;
  /** when the answer was decided (unix ms): a session that stays away longer than WAIT_MS loses it */
  decidedAt: number;
  reply: { type: "text" | "image" | "document" | "audio" | "video"; body: string | null; mediaId: string | null };
}

/** The idempotency key of an answer: one per inbound message and automation, so a job run twice (a crash before it was marked done) queues one message. */
export const replyKey = (j: Pick<ReplyJob, "inboundMessageId" | "automationId">) => `automation:${j.inboundMessageId}:${j.automationId}`;

/**
 * Queues the answer as an ordinary outbound message that carries `automationId`, unless the
 * contact opted out meanwhile. A session that is not connected (a server restarting, a
 * connection being restored) is looked at again every few seconds for up to two hours; a session,
 * media or plan that refuses the send gives the answer up.
 */
export async function sendReply(deps: AppDeps, j: ReplyJob): Promise<string | null> {
  if ((await findContactByPhone(deps.db, j.workspaceId, j.phone))?.optedOut) return null;
  const input = { session_id: j.sessionId, to: j.phone, type: j.reply.type, ...(j.reply.body !== null ? { body: j.reply.body } : {}), ...(j.reply.mediaId ? { mediaId: j.reply.mediaId } : {}) } as SendBody;
  try {
    const { data } = await acceptSend(deps, { workspaceId: j.workspaceId, actorId: j.automationId }, input, replyKey(j), { automationId: j.automationId });
    return data.id;
  } catch (err) {
    if (err instanceof AppError && err.code === "CHATAPP_UNAVAILABLE" && deps.clock.now().getTime() - j.decidedAt < WAIT_MS) throw new RetryLaterError(RECHECK_MS, "session not connected");
    if (err instanceof AppError && err.code !== "INTERNAL_ERROR") {
      deps.log.warn("auto-reply not sent", { automationId: j.automationId, inboundMessageId: j.inboundMessageId, code: err.code, reason: err.message });
      throw new PermanentJobError(`${err.code}: ${err.message}`);
    }
    throw err;
  }
}

export function replyJobHandler(deps: AppDeps): JobHandler<ReplyJob> {
  return {
    kind: REPLY_JOB,
    // waiting for a session is a reschedule, not an attempt: these count real failures
    maxAttempts: 10,
    // on PostgreSQL a crashed server's claim is not freed at start-up (another node may hold it): a
    // short lease (extended while the job runs) lets the answer go out seconds after a restart
    leaseMs: 10_000,
    run: async (j) => void (await sendReply(deps, j)),
  };
}
