import type { AppEvent, EventBus } from "../../events/bus.ts";
import type { Logger } from "../../log.ts";

/** One open WebSocket as the hub sees it. */
export interface RealtimeClient {
  workspaceId: string;
  send(text: string): void;
  ping(): void;
}

/**
 * D10: forwards every committed event to the WebSockets of its workspace, and only those.
 * Modules publish through the bus; the hub is one of its after-commit listeners.
 */
export class RealtimeHub {
  private byWorkspace = new Map<string, Set<RealtimeClient>>();
  private pinger: ReturnType<typeof setInterval> | null = null;

  constructor(
    bus: EventBus,
    private pingIntervalMs: number,
    private log: Logger,
  ) {
    bus.subscribe((e) => this.deliver(e));
  }

  /** Registers an open socket of a workspace. */
  add(client: RealtimeClient): void {
    let set = this.byWorkspace.get(client.workspaceId);
    if (!set) this.byWorkspace.set(client.workspaceId, (set = new Set()));
    set.add(client);
    // keepalive pings run only while someone listens, so an idle server keeps no timer
    this.pinger ??= setInterval(() => this.pingAll(), this.pingIntervalMs);
  }

  /** Forgets a closed socket. */
  remove(client: RealtimeClient): void {
    const set = this.byWorkspace.get(client.workspaceId);
    if (!set) return;
    set.delete(client);
    if (!set.size) this.byWorkspace.delete(client.workspaceId);
    if (!this.byWorkspace.size && this.pinger) {
      clearInterval(this.pinger);
      this.pinger = null;
    }
  }

  /** Number of open sockets (all workspaces). */
  size(): number {
    let n = 0;
    for (const set of this.byWorkspace.values()) n += set.size;
    return n;
  }

  private deliver(e: AppEvent): void {
    const set = this.byWorkspace.get(e.workspaceId);
    if (!set) return;
    const text = JSON.stringify({ event: e.event, timestamp: e.timestamp, data: e.data });
    for (const c of set) {
      try {
        c.send(text);
      } catch (err) {
        this.log.warn("websocket send failed", { err });
      }
    }
  }

  private pingAll(): void {
    for (const set of this.byWorkspace.values()) {
      for (const c of set) {
        try {
          c.ping();
        } catch {
          // a socket that cannot be pinged is closing; its close handler removes it
        }
      }
    }
  }
}
