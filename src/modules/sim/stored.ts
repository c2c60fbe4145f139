import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { onInboundStored } from "../messages/stored-signal.ts";

/** How long a sim inbound request waits for the messaging module to store the message. */
export const STORE_WAIT_MS = 15_000;
/**
 * How soon the row is first looked for besides the event: the node holding the session may be
 * another one (a sim network process links them), whose events this node may not hear. The
 * look-ups then back off (doubling, up to STORE_POLL_MAX_MS): under load a waiting request
 * must not add a query per fifth of a second to the server it waits on.
 */
const STORE_POLL_MS = 200;
const STORE_POLL_MAX_MS = 1_600;

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
  /**
   * Watchers that do not know their network id yet (the network is being told), by session:
   * a message of theirs stored meanwhile is kept for them, so `wait` needs no query.
   */
  early: Map<string, Set<Map<string, string>>>;
}
const registries = new WeakMap<Deps["bus"], Waiters>();
const sessionKey = (workspaceId: string, sessionId: string) => `${workspaceId}\u0000${sessionId}`;

function waitersOf(deps: Deps): Waiters {
  let w = registries.get(deps.bus);
  if (w) return w;
  const made: Waiters = { byKey: new Map(), sessions: new Map(), early: new Map() };
  onInboundStored(deps.bus, (workspaceId, sessionId, networkMessageId, messageId) => {
    const sk = sessionKey(workspaceId, sessionId);
    if (!made.sessions.get(sk)) return;
    const found = made.byKey.get(`${sk}\u0000${networkMessageId}`);
    if (found) return found(messageId);
    for (const seen of made.early.get(sk) ?? []) seen.set(networkMessageId, messageId);
  });
  registries.set(deps.bus, made);
  return made;
}

/**
 * Starts watching for the stored row of an inbound message before the network is told, so
 * the commit cannot slip past. `wait()` resolves with Parley's message id once the row (and its
 * message_received) committed; it fails with 500 when the message was not stored in time.
 * `poll: false` (the sim runs in this process, so this process stores the message and tells
 * its commit) makes no look-up before that time-out: under load, the look-ups of the requests
 * waiting for queued messages were added to the server they waited on.
 */
export function watchStored(
  deps: Deps,
  workspaceId: string,
  sessionId: string,
  opts: { poll?: boolean } = {},
): { wait(networkMessageId: string): Promise<string>; cancel(): void } {
  const waiters = waitersOf(deps);
  const sk = sessionKey(workspaceId, sessionId);
  waiters.sessions.set(sk, (waiters.sessions.get(sk) ?? 0) + 1);
  // what this node stores for the session until `wait` names the message
  const early = new Map<string, string>();
  let earlyOfSession = waiters.early.get(sk);
  if (!earlyOfSession) waiters.early.set(sk, (earlyOfSession = new Set()));
  earlyOfSession.add(early);
  const unwatchEarly = () => {
    earlyOfSession.delete(early);
    if (!earlyOfSession.size && waiters.early.get(sk) === earlyOfSession) waiters.early.delete(sk);
  };
  let watching = true;
  let key: string | null = null;
  const unsubscribe = () => {
    if (!watching) return;
    watching = false;
    unwatchEarly();
    if (key) waiters.byKey.delete(key);
    const n = (waiters.sessions.get(sk) ?? 1) - 1;
    if (n > 0) waiters.sessions.set(sk, n);
    else waiters.sessions.delete(sk);
  };
  return {
    cancel: unsubscribe,
    wait(networkMessageId) {
      return new Promise<string>((resolve, reject) => {
        unwatchEarly();
        const storedAlready = early.get(networkMessageId);
        if (storedAlready !== undefined) {
          unsubscribe();
          return resolve(storedAlready);
        }
        let poll: ReturnType<typeof setTimeout> | undefined;
        const timer = setTimeout(() => {
          clearTimeout(poll);
          unsubscribe();
          storedId(deps, workspaceId, sessionId, networkMessageId).then((id) => {
            if (id) resolve(id);
            else reject(new AppError("INTERNAL_ERROR", "The inbound message was handed to Parley but not stored (see the server log)"));
          }, reject);
        }, STORE_WAIT_MS);
        const found = (id: string) => {
          if (!watching) return;
          clearTimeout(timer);
          clearTimeout(poll);
          unsubscribe();
          resolve(id);
        };
        const check = async (after: number) => {
          const id = await storedId(deps, workspaceId, sessionId, networkMessageId).catch(() => null);
          if (id) found(id);
          else if (watching) poll = setTimeout(() => void check(Math.min(after * 2, STORE_POLL_MAX_MS)), after);
        };
        // this node's commit of the row, told with its network id (one told before is in `early`)
        key = `${sk}\u0000${networkMessageId}`;
        waiters.byKey.set(key, found);
        // looked for besides only when another node may store it (a sim network process links
        // the nodes); a sim in this process delivers here, and this process tells its commit
        if (opts.poll !== false) poll = setTimeout(() => void check(STORE_POLL_MS * 2), STORE_POLL_MS);
      });
    },
  };
}
