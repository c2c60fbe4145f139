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

export interface MessagingServices {
  periodic: PeriodicJob[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The background side of messaging: the outbound sender job, the driver's inbound messages
 * and receipts, and the periodic sweeps. Built once by createServices.
 */
export function messagingServices(deps: AppDeps): MessagingServices {
  const sender = new OutboundSender(deps);
  deps.jobs.register(sender.handler());
  // inbound messages of one session are stored one after another, in arrival order
  const chains = new Map<string, Promise<void>>();
  const inOrder = (sessionId: string, what: Record<string, string>, store: () => Promise<void>) => {
    const next = (chains.get(sessionId) ?? Promise.resolve())
      .then(store)
      .catch((err) => deps.log.error("inbound message not stored", { sessionId, ...what, err }))
      .finally(() => {
        if (chains.get(sessionId) === next) chains.delete(sessionId);
      });
    chains.set(sessionId, next);
  };
  const unsubscribe = deps.network.onEvent((e) => {
    if (e.type === "inbound") inOrder(e.sessionId, { networkMessageId: e.message.networkMessageId }, () => receiveInbound(deps, e.sessionId, e.message));
    else if (e.type === "outbound_echo") inOrder(e.sessionId, { networkMessageId: e.message.networkMessageId }, () => recordEcho(deps, e.sessionId, e.message));
    else if (e.type === "rejected") onRejected(deps, e);
    // in the session's order with its inbound messages: a message stored under the LID just before is moved too
    else if (e.type === "identity") inOrder(e.sessionId, { lid: e.lid }, async () => {
      await mergeIdentity(deps, e.sessionId, e.lid, e.phone);
    });
    else if (e.type === "receipt") {
      applyReceipt(deps, e).catch((err) => deps.log.error("receipt not applied", { sessionId: e.sessionId, networkMessageId: e.networkMessageId, err }));
    }
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
  };
}
