import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { onInboundStored } from "../messages/stored-signal.ts";

/** How long a sim inbound request waits for the messaging module to store the message. */
export const STORE_WAIT_MS = 15_000;
/**
 * How often the row is looked for besides the event: the node holding the session may be
 * another one (a sim network process links them), whose events this node may not hear.
 */
const STORE_POLL_MS = 200;

type Deps = Pick<AppDeps, "db" | "bus">;

async function storedId(deps: Deps, workspaceId: string, sessionId: string, networkMessageId: string): Promise<string | null> {
  const row = await deps.db
    .prepare<{ id: string }>("SELECT id FROM messages WHERE workspace_id = ? AND session_id = ? AND network_message_id = ? AND direction = 'inbound'")
    .get(workspaceId, sessionId, networkMessageId);
  return row?.id ?? null;
}

/**
 * The waiters of one runtime, by workspace, session and network message id, and its one
 * listener: the messaging module tells this process's stored inbound messages with their
 * network id once committed, matched to their waiter without a query (a look-up per message
 * before; with every waiter of the session looking for its own row, a query per waiter per
 * message before that).
 */
interface Waiters {
  byKey: Map<string, (messageId: string) => void>;
  /** waiters per workspace and session: an event of a session nobody waits on costs nothing */
  sessions: Map<string, number>;
}
const registries = new WeakMap<Deps["bus"], Waiters>();
const sessionKey = (workspaceId: string, sessionId: string) => `${workspaceId}\u0000${sessionId}`;

function waitersOf(deps: Deps): Waiters {
  let w = registries.get(deps.bus);
  if (w) return w;
  const made: Waiters = { byKey: new Map(), sessions: new Map() };
  onInboundStored(deps.bus, (workspaceId, sessionId, networkMessageId, messageId) => {
    const sk = sessionKey(workspaceId, sessionId);
    if (made.sessions.get(sk)) made.byKey.get(`${sk}\u0000${networkMessageId}`)?.(messageId);
  });
  registries.set(deps.bus, made);
  return made;
}

/**
 * Starts watching for the stored row of an inbound message before the network is told, so
 * the commit cannot slip past. `wait()` resolves with Parley's message id once the row (and its
 * message_received) committed; it fails with 500 when the message was not stored in time.
 */
export function watchStored(deps: Deps, workspaceId: string, sessionId: string): { wait(networkMessageId: string): Promise<string>; cancel(): void } {
  const waiters = waitersOf(deps);
  const sk = sessionKey(workspaceId, sessionId);
  waiters.sessions.set(sk, (waiters.sessions.get(sk) ?? 0) + 1);
  let watching = true;
  let key: string | null = null;
  const unsubscribe = () => {
    if (!watching) return;
    watching = false;
    if (key) waiters.byKey.delete(key);
    const n = (waiters.sessions.get(sk) ?? 1) - 1;
    if (n > 0) waiters.sessions.set(sk, n);
    else waiters.sessions.delete(sk);
  };
  return {
    cancel: unsubscribe,
    wait(networkMessageId) {
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          clearInterval(poll);
          unsubscribe();
          storedId(deps, workspaceId, sessionId, networkMessageId).then((id) => {
            if (id) resolve(id);
            else reject(new AppError("INTERNAL_ERROR", "The inbound message was handed to Parley but not stored (see the server log)"));
          }, reject);
        }, STORE_WAIT_MS);
        const found = (id: string) => {
          if (!watching) return;
          clearTimeout(timer);
          clearInterval(poll);
          unsubscribe();
          resolve(id);
        };
        const check = async () => {
          const id = await storedId(deps, workspaceId, sessionId, networkMessageId).catch(() => null);
          if (id) found(id);
        };
        // this node's commit of the row, told with its network id
        key = `${sk}\u0000${networkMessageId}`;
        waiters.byKey.set(key, found);
        const poll = setInterval(() => void check(), STORE_POLL_MS);
        void check(); // stored before the watcher got its id
      });
    },
  };
}
