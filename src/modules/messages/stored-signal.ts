/**
 * This process's signal that an inbound message was stored, told once its transaction
 * committed, with the network's id of the message (which message_received does not carry): a
 * caller waiting for a particular network message (the sim route) matches it without a query.
 * Messages stored by another node of a cluster are not told here.
 */
export type InboundStored = (workspaceId: string, sessionId: string, networkMessageId: string, messageId: string) => void;

const listeners = new WeakMap<object, Set<InboundStored>>();

/** Adds a listener for the runtime whose bus is `bus`; returns the unsubscriber. */
export function onInboundStored(bus: object, fn: InboundStored): () => void {
  let set = listeners.get(bus);
  if (!set) listeners.set(bus, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

/** Tells the listeners of `bus` (call after the commit). */
export function tellInboundStored(bus: object, workspaceId: string, sessionId: string, networkMessageId: string, messageId: string): void {
  for (const fn of listeners.get(bus) ?? []) {
    try {
      fn(workspaceId, sessionId, networkMessageId, messageId);
    } catch {
      // a listener's failure is its own (the sim route's poll looks again)
    }
  }
}
