import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";
import { pruneChecks } from "../numbers/repo.ts";
import { mergeIdentity } from "./identity.ts";
import { onRejected, recordEcho } from "./network-events.ts";
import { pruneIdempotencyKeys } from "./idempotency.ts";
import { receiveInbound } from "./inbound.ts";
import { applyReceipt } from "./receipts.ts";
import { findSession } from "./repo.ts";
import { OutboundSender, sessionGate, sweepQueued } from "./sender.ts";
import { scheduledHandler } from "./scheduled.ts";

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
  // a session's inbound messages and receipts are handled one after another, in arrival order
  // (a read receipt may arrive before its delivered one; each must see the other's result)
  const chains = new Map<string, Promise<void>>();
  const inSessionOrder = (sessionId: string, handle: () => Promise<unknown>, what: string, networkMessageId: string): void => {
    const next = (chains.get(sessionId) ?? Promise.resolve())
      .then(async () => void (await handle()))
      .catch((err) => deps.log.error(what, { sessionId, networkMessageId, err }))
      .finally(() => {
        if (chains.get(sessionId) === next) chains.delete(sessionId);
      });
    chains.set(sessionId, next);
  };
  const unsubscribe = deps.network.onEvent((e) => {
    if (e.type === "inbound") inSessionOrder(e.sessionId, () => receiveInbound(deps, e.sessionId, e.message), "inbound message not stored", e.message.networkMessageId);
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
    },
    async stop() {
      unsubscribe();
      unlisten();
      sender.stop();
      await Promise.allSettled([...chains.values()]);
    },
    async settled() {
      while (chains.size) await Promise.allSettled([...chains.values()]);
    },
  };
}
