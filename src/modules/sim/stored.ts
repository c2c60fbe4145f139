import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";

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
 * Starts watching for the stored row of an inbound message before the network is told, so
 * the commit cannot slip past. `wait()` resolves with Parley's message id once the row (and its
 * message_received) committed; it fails with 500 when the message was not stored in time.
 */
export function watchStored(deps: Deps, workspaceId: string, sessionId: string): { wait(networkMessageId: string): Promise<string>; cancel(): void } {
  let check: (() => Promise<void>) | null = null;
  // committed message_received of this session: look for the row then (the event does not carry the network id)
  const unsubscribe = deps.bus.subscribe((e) => {
    if (e.event === "message_received" && e.workspaceId === workspaceId && e.data.sessionId === sessionId) void check?.();
  });
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
        check = async () => {
          const id = await storedId(deps, workspaceId, sessionId, networkMessageId).catch(() => null);
          if (!id) return;
          clearTimeout(timer);
          clearInterval(poll);
          unsubscribe();
          resolve(id);
        };
        const poll = setInterval(() => void check?.(), STORE_POLL_MS);
        void check(); // stored before the watcher got its id
      });
    },
  };
}
