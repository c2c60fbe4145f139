import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";
import { pruneChecks } from "../numbers/repo.ts";
import { mergeIdentity } from "./identity.ts";
import { onRejected, recordEcho } from "./network-events.ts";
import { pruneIdempotencyKeys } from "./idempotency.ts";
import { receiveInbound } from "./inbound.ts";
import { InboundBatcher } from "./inbound-batch.ts";
import { applyReceipt } from "./receipts.ts";
import { findSession } from "./repo.ts";
import { OutboundSender, sessionGate, sweepQueued } from "./sender.ts";
import { scheduledHandler } from "./scheduled.ts";
import { TextIndexFollower } from "./text-index.ts";

export interface MessagingServices {
  periodic: PeriodicJob[];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves once every network event heard so far (inbound messages, echoes, receipts) is handled. */
  settled(): Promise<void>;
}

/**
 * The background side of messaging: the outbound sender job, the driver's inbound messages
 * and receipts, and the periodic sweeps. Built once by createServices.
 */
export function messagingServices(deps: AppDeps): MessagingServices {
  const sender = new OutboundSender(deps);
  deps.jobs.register(sender.handler());
  deps.jobs.register(scheduledHandler(deps));
  const inbound = new InboundBatcher(deps.db);
  const textIndex = new TextIndexFollower(deps.db, deps.log.child({ component: "search-index" }));
  // a session's inbound messages and receipts are handled one after another, in arrival order
  // (a read receipt may arrive before its delivered one; each must see the other's result). An
  // inbound message lets the session's next one start once it has its place in the group commit
  // (`queued`), so the messages that arrive together are stored in one transaction, still in
  // order; any other event waits until everything before it is stored.
  const chains = new Map<string, { done: Promise<void>; next: Promise<void> }>();
  const inSessionOrder = (sessionId: string, handle: (queued: () => void) => Promise<unknown>, what: string, networkMessageId: string, overlap = false): void => {
    const prev = chains.get(sessionId);
    let queued!: () => void;
    const followable = new Promise<void>((r) => (queued = r));
    const own = (overlap ? prev?.next : prev?.done) ?? Promise.resolve();
    const ran = own
      .then(async () => void (await handle(queued)))
      .catch((err) => deps.log.error(what, { sessionId, networkMessageId, err }))
      .finally(queued);
    const done = prev && overlap ? Promise.all([prev.done, ran]).then(() => {}) : ran;
    const tail = { done, next: overlap ? followable : done };
    chains.set(sessionId, tail);
    void done.finally(() => {
      if (chains.get(sessionId) === tail) chains.delete(sessionId);
    });
  };
  const unsubscribe = deps.network.onEvent((e) => {
    if (e.type === "inbound") {
      const m = e.message;
      inSessionOrder(e.sessionId, (queued) => receiveInbound(deps, e.sessionId, m, { batch: inbound, queued }), "inbound message not stored", m.networkMessageId, true);
    }
    else if (e.type === "outbound_echo") inSessionOrder(e.sessionId, () => recordEcho(deps, e.sessionId, e.message), "inbound message not stored", e.message.networkMessageId);
    else if (e.type === "rejected") onRejected(deps, e);
    // in the session's order with its inbound messages: a message stored under the LID just before is moved too
    else if (e.type === "identity") inSessionOrder(e.sessionId, () => mergeIdentity(deps, e.sessionId, e.lid, e.phone), "identity not merged", e.lid);
    else if (e.type === "receipt") inSessionOrder(e.sessionId, () => applyReceipt(deps, e), "receipt not applied", e.networkMessageId);
  });
  // a session that ended for good fails its whole queue at once (the sender job would find it too, later)
  const unlisten = deps.bus.subscribe((e) => {
    if (e.event !== "session_disconnected" || typeof e.data.sessionId !== "string") return;
    const sessionId = e.data.sessionId;
    void (async () => {
      const gate = sessionGate(await findSession(deps.db, e.workspaceId, sessionId));
      if (gate.kind === "end") await sender.failSession(e.workspaceId, sessionId, gate.error);
    })().catch((err) => deps.log.error("queue of an ended session not failed; the sender job will", { sessionId, err }));
  });
  return {
    periodic: [
      // safety net: every session with queued messages has a sender job
      { name: "messages.sweep", schedule: "*/30 * * * * *", run: async () => { await sweepQueued(deps); } },
      { name: "messages.idempotency-prune", schedule: "41 * * * *", run: async () => { await pruneIdempotencyKeys(deps); } },
      // answers of the network about numbers, expired (a day old)
      { name: "numbers.prune", schedule: "47 * * * *", run: async () => { await pruneChecks(deps.db, deps.clock.now().getTime()); } },
    ],
    async start() {
      const n = await sweepQueued(deps);
      if (n) deps.log.info("outbound queue resumed", { sessions: n });
      textIndex.start();
    },
    async stop() {
      unsubscribe();
      unlisten();
      sender.stop();
      await Promise.allSettled([...chains.values()].map((c) => c.done));
      await textIndex.stop();
    },
    async settled() {
      while (chains.size) await Promise.allSettled([...chains.values()].map((c) => c.done));
    },
  };
}
