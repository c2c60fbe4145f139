import type { AppDeps } from "../../deps.ts";
import { defaultBackoff, RetryLaterError, type JobHandler } from "../../jobs/queue.ts";
import { NetworkError, type OutboundMessage } from "../../network/driver.ts";
import { findMedia } from "../media/repo.ts";
import { readMediaFile } from "../media/store.ts";
import { richOutbound } from "./rich-send.ts";
import { numberChecker } from "../numbers/checker.ts";
import { publishFailed, publishSent } from "./events.ts";
import { OutcomeBatcher } from "./outcome-batch.ts";
import { groupLocal } from "../../db/group-memo.ts";
import { fenceStillHolds } from "../sessions/keys-repo.ts";
import { claimSend, failQueuedOfSession, findSession, markFailed, markRetry, nextQueued, sessionsWithQueued, type MessageRow } from "./repo.ts";
import { CLAIM_BATCH_MAX, claimHeadsIfDue, markSentMany, queuedHeads, releaseClaims, type Claim } from "./claim-repo.ts";

export const SENDER_JOB = "messages.send";

/** Disconnect reasons after which a session does not come back by itself: its queue fails at once. */
export const SESSION_ENDED_REASONS: ReadonlySet<string> = new Set(["user_request", "logged_out", "banned", "replaced", "bad_session"]);
/** While a session is away but may come back, the queue is looked at again after this (doubling to the cap). */
const HOLD_FIRST_MS = 5_000;
const HOLD_MAX_MS = 30_000;
/** A session another node holds: its queue is looked at again this soon, by whichever node claims the job (docs/cluster.md). */
const ELSEWHERE_MS = 250;
/** One run of a session's queue sends at most this many messages, for at most this long (then the job runs again). */
const RUN_MAX_MESSAGES = 500;
const RUN_MAX_MS = 250;
/**
 * A batch of claimed heads stops sending after this long (the rest go back uncounted, and the
 * session's next batches are as big as what fitted): a message's message_sent waits for the
 * batch's commit, so a slow network must not hold it long.
 */
const BATCH_MAX_MS = 50;

/** What the sender does with a session's queue, from the session's row. */
export type SessionGate = { kind: "send" } | { kind: "hold" } | { kind: "end"; error: { code: string; message: string } };

/**
 * `send` while connected; `hold` (attempts not counted) while the session may come back
 * (linking, or disconnected after a drop the driver retries, or without a final reason);
 * `end` when it was deleted or disconnected for good.
 */
export function sessionGate(session: { status: string; lastDisconnectReason: string | null } | undefined): SessionGate {
  if (!session) return { kind: "end", error: { code: "session_deleted", message: "the session was deleted before the message was sent" } };
  if (session.status === "connected") return { kind: "send" };
  const reason = session.lastDisconnectReason;
  if (session.status === "disconnected" && reason && SESSION_ENDED_REASONS.has(reason)) {
    return { kind: "end", error: { code: "session_disconnected", message: `the session was disconnected (${reason}) before the message was sent` } };
  }
  return { kind: "hold" };
}

interface SenderPayload {
  workspaceId: string;
  sessionId: string;
}

/** The dedupe key of a session's sender job (one pending job per session). */
export const senderJobKey = (sessionId: string) => `${SENDER_JOB}:${sessionId}`;

/** Makes sure the session's sender job exists; call inside `db.tx` (the dedupe check and the insert must not be interleaved). */
export async function enqueueSender(deps: Pick<AppDeps, "jobs">, workspaceId: string, sessionId: string): Promise<void> {
  await deps.jobs.enqueue(SENDER_JOB, { workspaceId, sessionId } satisfies SenderPayload, { dedupeKey: senderJobKey(sessionId) });
}

/**
 * Enqueues a sender for every session with queued messages (after a restart, and as a safety net).
 * The sessions are read before the transaction, not under the store's write lock, which every
 * send waits for: a session whose queue empties meanwhile gets a sender that finds nothing and
 * ends; one whose queue fills meanwhile was given its sender by the send itself.
 */
export async function sweepQueued(deps: Pick<AppDeps, "db" | "jobs">): Promise<number> {
  const sessions = await sessionsWithQueued(deps.db);
  if (!sessions.length) return 0;
  return deps.db.tx(async () => {
    for (const s of sessions) await enqueueSender(deps, s.workspaceId, s.sessionId);
    return sessions.length;
  });
}

/**
 * The network message id Parley asks for: derived from the message id, so a resend after a
 * crash carries the same id and the network (sim: by its sent log; baileys: the message key)
 * recognises it instead of delivering a second copy. Shaped like the ids the network's web
 * clients make ("3EB0" + 36 upper-case hex digits).
 */
export function clientMessageId(messageId: string): string {
  return "3EB0" + new Bun.CryptoHasher("sha256").update(messageId).digest("hex").slice(0, 36).toUpperCase();
}

/** A batch's attempts are over: the pacing gap before the next head, and the next heads if they were claimed with the outcomes. */
interface Sent {
  gap: number;
  next: Claim[];
}

class PermanentSendError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/**
 * The durable outbound queue's worker: one job per session (dedupe key) sends the oldest
 * queued message, then reschedules itself after the pacing gap (min gap + jitter), so
 * messages go out in order and a worker slot is never held while waiting. With pacing off it
 * sends the due messages of the session in one run.
 */
export class OutboundSender {
  /** heads claimed here whose outcome is not committed yet: message id → session id */
  private inflight = new Map<string, string>();
  /** how many heads a session's next batch claims (fewer when its sends are slow) */
  private batchSizes = new Map<string, number>();
  private nextAllowedAt = new Map<string, number>();
  /** sessions whose queue is held (not connected): how many holds in a row */
  private holds = new Map<string, number>();
  private timers = new Set<ReturnType<typeof setImmediate>>();
  private stopped = false;

  /** outcomes of the sessions' sends that finish in one turn commit together */
  private outcomes: OutcomeBatcher;

  constructor(private deps: AppDeps) {
    this.outcomes = new OutcomeBatcher(deps);
  }

  /** The job handler to register. */
  handler(): JobHandler<SenderPayload> {
    return {
      kind: SENDER_JOB,
      // a reschedule (RetryLaterError, every message) spends no attempt: only runs that fail count;
      // a job that gives up is enqueued again by the sweep while its session has queued messages
      maxAttempts: 10,
      // short, so a sender orphaned by a crash is taken over soon after the restart
      leaseMs: 5_000,
      backoffMs: (attempt) => Math.min(30_000, defaultBackoff(attempt)),
      run: (p) => this.step(p),
    };
  }

  /** Stops rescheduling checks (before the database closes). */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearImmediate(t);
    this.timers.clear();
  }

  /**
   * Fails every queued message of a session that ended for good, with message_failed each, in
   * one transaction. Called when the session ends and by the job when it finds it ended.
   */
  async failSession(workspaceId: string, sessionId: string, error: { code: string; message: string }): Promise<number> {
    const { db, clock } = this.deps;
    this.holds.delete(sessionId);
    return db.tx(async () => {
      const failed = await failQueuedOfSession(db, workspaceId, sessionId, this.inflightOf(sessionId), error, clock.now().getTime());
      for (const m of failed) await publishFailed(this.deps, m, error);
      return failed.length;
    });
  }

  /** The heads of a session in flight here. */
  private inflightOf(sessionId: string): string[] {
    const ids: string[] = [];
    for (const [id, sid] of this.inflight) if (sid === sessionId) ids.push(id);
    return ids;
  }

  /**
   * One run of a session's queue: sends its due messages one after another while no pacing
   * gap separates them (pacing off), so a queue drains without a job round trip per message.
   * While the run goes on, the due heads of the session are claimed in batches (up to
   * CLAIM_BATCH_MAX at once), sent in order, and their outcomes commit together with the claim
   * of the next batch (one transaction for a batch). A run ends when the queue is empty, held,
   * waiting for a gap or a retry (the job comes back then), or after RUN_MAX_MESSAGES /
   * RUN_MAX_MS so other sessions get the worker slots.
   */
  private async step(p: SenderPayload): Promise<void> {
    const started = performance.now();
    let claimed: Claim[] = [];
    let n = 0; // heads taken in this run
    for (;;) {
      const taking = Math.max(1, claimed.length);
      // how many heads the run may still claim, checked when a batch's outcomes commit (the
      // group commit waits for the end of the event loop's turn: requests get in between batches)
      const room = () => (this.stopped || performance.now() - started >= RUN_MAX_MS ? 0 : Math.max(0, RUN_MAX_MESSAGES - n - taking));
      const sent = claimed.length ? await this.sendHeads(p, claimed, room) : await this.sendNext(p, room);
      if (sent === null) return; // nothing left, or handled (the session ended)
      n += taking;
      claimed = sent.next;
      if (claimed.length) continue;
      const { gap } = sent;
      if (gap > 0) {
        if (await nextQueued(this.deps.db, p.workspaceId, p.sessionId)) throw new RetryLaterError(gap, "next message after the pacing gap");
        return this.recheckSoon(p.workspaceId, p.sessionId);
      }
      if (this.stopped || n >= RUN_MAX_MESSAGES || performance.now() - started >= RUN_MAX_MS) {
        throw new RetryLaterError(0, "the rest of the queue in the next run");
      }
    }
  }

  /**
   * Sends the queue's head if it is due: the pacing gap to keep before the next one (and the
   * next head when it was claimed with this outcome), or null when the queue is empty or
   * ended; throws RetryLaterError when the head must wait.
   */
  private async sendNext(p: SenderPayload, room: () => number): Promise<Sent | null> {
    const { workspaceId, sessionId } = p;
    const { db, clock, log } = this.deps;
    const head = await nextQueued(db, workspaceId, sessionId);
    if (!head) {
      this.recheckSoon(workspaceId, sessionId);
      return null;
    }
    const session = await findSession(db, workspaceId, sessionId);
    const gate = sessionGate(session);
    if (gate.kind === "end") {
      await this.failSession(workspaceId, sessionId, gate.error);
      // a message in flight may still come back to the queue: look again then
      if (await nextQueued(db, workspaceId, sessionId)) throw new RetryLaterError(1000, "send in flight");
      return null;
    }
    if (gate.kind === "hold") throw new RetryLaterError(this.holdDelay(sessionId), "session not connected; queue held");
    // the pause of the session's queue, read with the session (send-pause.ts)
    const paused = (session?.sendPausedUntil ?? 0) - clock.now().getTime();
    if (paused > 0) throw new RetryLaterError(paused, `sending paused (${session?.sendPauseReason ?? "paused"})`);
    const wait = this.dueAt(head) - clock.now().getTime();
    if (wait > 0) throw new RetryLaterError(wait, "waiting for the pacing gap or a retry");
    if (this.inflight.has(head.id)) throw new RetryLaterError(1000, "send in flight");
    const token = Bun.randomUUIDv7();
    // a token without a network id is an attempt cut short by a crash: policy in docs/messages.md (exactly once across crashes)
    if (head.sendingToken) log.warn("resending a message whose last attempt was interrupted; same client id", { messageId: head.id });
    if (!(await claimSend(db, workspaceId, head.id, token, head.sendingToken, clock.now().getTime()))) return this.paced(sessionId, this.nextGap());
    this.inflight.set(head.id, sessionId);
    return this.sendHeads(p, [{ head, token }], room);
  }

  /**
   * Sends a batch of claimed heads. With no pacing gap after it and room left in the run, the
   * next batch is claimed in the transaction of this one's outcomes, as far as its heads may go at once.
   */
  private async sendHeads({ workspaceId, sessionId }: SenderPayload, claims: Claim[], room: () => number): Promise<Sent> {
    const gap = this.nextGap();
    const claimNext = async (): Promise<Claim[]> => {
      const k = gap === 0 ? Math.min(room(), this.batchSizes.get(sessionId) ?? CLAIM_BATCH_MAX) : 0;
      return k > 0 ? this.claimIfDue(workspaceId, sessionId, k) : [];
    };
    const r = await this.attempt(claims, claimNext);
    if (r === "elsewhere") throw new RetryLaterError(ELSEWHERE_MS, "session held by another node; left for its holder");
    if (r === "held") throw new RetryLaterError(this.holdDelay(sessionId), "session not connected on the network; queue held");
    return this.paced(sessionId, gap, r.next);
  }

  /** When a head may be sent: its retry time and its session's pacing gap, whichever is later. */
  private dueAt(head: MessageRow): number {
    return Math.max(head.nextAttemptAt ?? 0, this.nextAllowedAt.get(head.sessionId) ?? 0);
  }

  /** The pacing gap after a send: min gap + jitter. */
  private nextGap(): number {
    const { sendMinGapMs, sendJitterMs } = this.deps.config;
    return sendMinGapMs + Math.floor(Math.random() * (sendJitterMs + 1));
  }

  /** A head's attempt is over: the session is not held, and its next send waits `gap`. */
  private paced(sessionId: string, gap: number, next: Claim[] = []): Sent {
    this.holds.delete(sessionId);
    this.nextAllowedAt.set(sessionId, this.deps.clock.now().getTime() + gap);
    return { gap, next };
  }

  /**
   * Inside the previous batch's transaction: claims up to `limit` heads of the session, in
   * order, when every check of sendNext lets them go now; the batch stops before the first head
   * that may not (a retry not due, an interrupted attempt, one in flight). Anything else (no
   * head, session away or ended, a send pause) claims nothing and is left to sendNext, which says why.
   */
  private async claimIfDue(workspaceId: string, sessionId: string, limit: number): Promise<Claim[]> {
    const { db, clock } = this.deps;
    const session = await findSession(db, workspaceId, sessionId);
    const now = clock.now().getTime();
    if (sessionGate(session).kind !== "send" || (session?.sendPausedUntil ?? 0) > now) return [];
    if ((this.nextAllowedAt.get(sessionId) ?? 0) > now) return [];
    // PostgreSQL: the heads read and claimed in one statement (one round trip under the write lock)
    if (db.engine === "postgres") return claimHeadsIfDue(db, workspaceId, sessionId, Bun.randomUUIDv7(), now, this.inflightOf(sessionId), limit);
    const claims: Claim[] = [];
    for (const head of await queuedHeads(db, workspaceId, sessionId)) {
      if (claims.length >= limit || head.sendingToken !== null || this.inflight.has(head.id) || (head.nextAttemptAt ?? 0) > now) break;
      const token = Bun.randomUUIDv7();
      if (!(await claimSend(db, workspaceId, head.id, token, null, now))) break;
      claims.push({ head, token });
    }
    return claims;
  }

  /**
   * A message committed while this job was finishing found the job still pending (dedupe) and
   * enqueued nothing. Once the job is marked done (its promise settles before the next
   * macrotask; setImmediate, not a ~1 ms setTimeout), look again: the look and the enqueue in
   * one transaction, so a sender job committed meanwhile is found and not doubled.
   */
  private recheckSoon(workspaceId: string, sessionId: string): void {
    const { db } = this.deps;
    const t = setImmediate(() => {
      this.timers.delete(t);
      if (this.stopped) return;
      db.tx(async () => {
        if (await nextQueued(db, workspaceId, sessionId)) await enqueueSender(this.deps, workspaceId, sessionId);
      }).catch((err) => this.deps.log.warn("sender recheck failed; the periodic sweep will pick it up", { sessionId, err }));
    });
    this.timers.add(t);
  }

  /** The next delay of a held queue: 5 s doubling to 30 s while the session stays away. */
  private holdDelay(sessionId: string): number {
    const n = this.holds.get(sessionId) ?? 0;
    this.holds.set(sessionId, n + 1);
    return Math.min(HOLD_MAX_MS, HOLD_FIRST_MS * 2 ** n);
  }

  /**
   * The send attempts of a batch of claimed heads (in `inflight`), one after another in queue
   * order. A permanent failure fails its message and the batch goes on; a transient one
   * schedules its retry and ends the batch; `held` when the network says the session is not
   * connected (not counted), `elsewhere` when the session's lease is no longer usable here.
   * The heads not sent then go back uncounted (one statement), so nothing overtakes the one
   * that stopped the batch. The sent heads' outcomes commit together, after the lease fence
   * is checked, with `claimNext` (the next batch) when the batch went through.
   */
  private async attempt(claims: Claim[], claimNext: () => Promise<Claim[]>): Promise<"held" | "elsewhere" | { next: Claim[] }> {
    const { db, clock, log, network, config, leases } = this.deps;
    const { workspaceId: ws, sessionId } = claims[0]!.head;
    const sent: { head: MessageRow; id: string; token: string; nid: string }[] = [];
    let fence: ReturnType<typeof leases.fence>;
    let end: "held" | "elsewhere" | "retry" | undefined;
    const t0 = performance.now();
    let i = 0;
    let next: Claim[] = [];
    try {
      const onNetwork = await this.numbersOnNetwork(claims);
      for (; i < claims.length; i++) {
        if (i > 0 && (this.stopped || performance.now() - t0 > BATCH_MAX_MS)) break;
        const { head, token } = claims[i]!;
        try {
          if (onNetwork.get(head.phone) === false) throw new PermanentSendError("not_on_network", "the number is not on the network");
          const out = await this.outbound(head);
          // only the node holding the session's lease sends, and only before its lease could have
          // run out (a node frozen past it wakes up here with its links closed, and sends nothing)
          if (leases.running && !leases.usable(sessionId)) {
            end = "elsewhere";
            break;
          }
          fence ??= leases.fence(sessionId);
          const nid = (await withTimeout(network.send(sessionId, out), config.sendTimeoutMs)).networkMessageId;
          sent.push({ head, id: head.id, token, nid });
        } catch (err) {
          if (err instanceof NetworkError && err.code === "not_connected") {
            // a drop the session row has not caught up with: wait for the session, keep the attempt budget
            end = "held";
            break;
          }
          const e = describe(err);
          const retry = e.transient && head.attempts + 1 < config.sendMaxAttempts;
          await db.tx(async () => {
            const now = clock.now().getTime();
            if (retry) await markRetry(db, ws, head.id, token, now + defaultBackoff(head.attempts + 1), e, now);
            else if (await markFailed(db, ws, head.id, token, e, now)) await publishFailed(this.deps, head, { code: e.code, message: e.message });
          });
          this.inflight.delete(head.id);
          if (!(err instanceof NetworkError || err instanceof PermanentSendError)) log.error("send failed unexpectedly", { messageId: head.id, err });
          if (retry) {
            end = "retry";
            i++;
            break;
          }
        }
      }
      const rest = claims.slice(i);
      if (rest.length) {
        await releaseClaims(db, ws, rest.map((c) => ({ id: c.head.id, token: c.token })), clock.now().getTime());
        for (const c of rest) this.inflight.delete(c.head.id);
      }
      // a batch cut short by its time: the session's next batches are as big as what fitted
      const size = this.batchSizes.get(sessionId) ?? CLAIM_BATCH_MAX;
      if (!end && rest.length && !this.stopped) this.batchSizes.set(sessionId, Math.max(1, i));
      else if (i === claims.length && size < CLAIM_BATCH_MAX) this.batchSizes.set(sessionId, Math.min(CLAIM_BATCH_MAX, size * 2));
      if (!sent.length) return end === "held" || end === "elsewhere" ? end : { next: [] };
      // outside the catch: a database error here must not fail a message the network accepted;
      // the job retries and the resend is recognised by its client id
      let fenced = false;
      // the lease's read goes out with the group's BEGIN and write lock (PostgreSQL); taken only
      // in that group's transaction: run again alone (its group rolled back), the body reads under its own lock
      let early: { holds: Promise<boolean>; group: object | undefined } | undefined;
      const claimed = await this.outcomes.run(async () => {
        const group = groupLocal("sender.fence", () => ({}));
        const holds = early && group && early.group === group ? early.holds : undefined;
        // "sent" is written under the session's lease: once another node took the session, it is
        // left to the new holder, whose resend carries the same client id and is recognised
        if (fence && !(await (holds ?? fenceStillHolds(db, sessionId, fence)))) return void (fenced = true);
        const marked = await markSentMany(db, ws, sent, clock.now().getTime());
        for (const s of sent) if (marked.has(s.id)) await publishSent(this.deps, s.head);
        return end ? [] : claimNext();
      }, fence && db.engine === "postgres" ? () => {
        early = { holds: fenceStillHolds(db, sessionId, fence), group: groupLocal("sender.fence", () => ({})) };
        early.holds.catch(() => {}); // answered to the body
      } : undefined);
      if (fenced) {
        log.warn("a batch's outcomes under a lease another node has taken were refused; closing the link", { messageIds: sent.map((s) => s.id), sessionId });
        await leases.lost(sessionId, "lease taken by another node");
        return { next: [] };
      }
      if (end === "held" || end === "elsewhere") return end;
      next = claimed ?? [];
      return { next };
    } finally {
      // in flight until its outcome is committed: a session ending meanwhile must not fail it
      for (const c of claims) this.inflight.delete(c.head.id);
      // the next batch only once committed: a rolled-back claim must not stay in flight
      for (const c of next) this.inflight.set(c.head.id, sessionId);
    }
  }

  /**
   * A number that is not on the network would take the message and never deliver it: it fails
   * at once with `not_on_network`. The batch's numbers are looked up together (cached a day,
   * the rest asked in one question); a check that cannot be made (network busy, the number
   * unplaceable) lets the sends go ahead. A LID address is on the network by definition.
   */
  private async numbersOnNetwork(claims: Claim[]): Promise<Map<string, boolean>> {
    const { workspaceId, sessionId } = claims[0]!.head;
    const phones = [...new Set(claims.map((c) => c.head.phone).filter((p) => /^\d+$/.test(p)))];
    if (!phones.length) return new Map();
    const checker = numberChecker(this.deps);
    try {
      if (phones.length > 1) return await checker.check(workspaceId, sessionId, phones);
      const on = await checker.isOnNetwork(workspaceId, sessionId, phones[0]!);
      return on === undefined ? new Map() : new Map([[phones[0]!, on]]);
    } catch (err) {
      this.deps.log.debug("number check before a send failed; sending anyway", { messageIds: claims.map((c) => c.head.id), err });
      return new Map();
    }
  }

  private async outbound(head: MessageRow): Promise<OutboundMessage> {
    const out: OutboundMessage = { to: head.phone, type: head.type, clientMessageId: clientMessageId(head.id) };
    if (head.body) out.text = head.body;
    if (head.payload || head.replyToId) {
      const refused = await richOutbound(this.deps, head, out);
      if (refused) throw new PermanentSendError("reaction_target_missing", refused);
    }
    if (head.mediaId) {
      const row = await findMedia(this.deps.db, head.workspaceId, head.mediaId);
      const data = row ? await readMediaFile(this.deps.config, head.workspaceId, row.id).catch(() => null) : null;
      if (!row || !data) throw new PermanentSendError("media_missing", "the message's media file is no longer stored");
      out.media = { data, mimeType: row.mimeType, filename: row.filename ?? undefined };
    }
    return out;
  }
}

/**
 * A send that does not answer in time is a transient failure. The call itself cannot be
 * cancelled: if it still succeeds, the retry carries the same client id and is recognised.
 */
function withTimeout<T>(send: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NetworkError(`the network did not answer within ${ms} ms`, true, "send_timeout")), ms);
  });
  send.catch(() => {}); // a late failure of an abandoned send is not news
  return Promise.race([send, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Only an error declared permanent (by the network, or a missing media file) fails at once;
 * anything unexpected (a driver bug, a socket hiccup) is retried within sendMaxAttempts.
 */
function describe(err: unknown): { code: string; message: string; transient: boolean } {
  if (err instanceof NetworkError) return { code: err.code, message: err.message, transient: err.transient };
  if (err instanceof PermanentSendError) return { code: err.code, message: err.message, transient: false };
  return { code: "internal_error", message: "unexpected error while sending", transient: true };
}
