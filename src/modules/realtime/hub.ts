import { can } from "../../auth/permissions.ts";
import type { Clock } from "../../clock.ts";
import type { AppEvent, EventBus } from "../../events/bus.ts";
import type { Logger } from "../../log.ts";
import type { Role } from "../users/roles.ts";
import type { MemberRoleLookup } from "./repo.ts";

/** One open WebSocket as the hub sees it. */
export interface RealtimeClient {
  workspaceId: string;
  userId: string;
  /** the member's role when last checked */
  role: Role;
  send(text: string): void;
  /** Bytes queued for the socket and not yet written (its client reads slowly or not at all). */
  buffered?(): number;
  ping(): void;
  close(code: number, reason: string): void;
  /** Drops the connection at once, without a close handshake (and the buffered events with it). */
  terminate?(): void;
  /** Joins the workspace's pub/sub topic (Bun's native fan-out), when the socket has one. */
  subscribe?(topic: string): void;
  unsubscribe?(topic: string): void;
}

/** Sends one text to every socket subscribed to a topic (Bun's `server.publish`). */
export type TopicPublisher = (topic: string, text: string) => void;

/** The pub/sub topic of a workspace's sockets. */
export const workspaceTopic = (workspaceId: string) => `ws:${workspaceId}`;

interface WorkspaceSockets {
  clients: Set<RealtimeClient>;
  /** whether every client is subscribed to the topic (then non-QR events go out with one publish) */
  allSubscribed: boolean;
  /** the oldest membership check among the clients: no socket needs a re-check before this + MEMBERSHIP_RECHECK_MS */
  oldestCheck: number;
  /** the most bytes any socket had waiting at the last look for slow sockets (closeSlow) */
  behindAtLook: number;
  /** an upper bound of the bytes handed to the sockets since that look */
  sentSinceLook: number;
}

/** Membership of a socket's user is read again when the last check is older than this. */
export const MEMBERSHIP_RECHECK_MS = 5_000;
/** Close code of a socket whose user left the workspace. */
export const CLOSE_NOT_A_MEMBER = 4003;
/** Close code of a socket too far behind: it missed events, and its client should reload (the dashboard does). */
export const CLOSE_TOO_SLOW = 4009;
/** A socket past its bound of unwritten events this long is closed (CLOSE_TOO_SLOW). */
export const SLOW_GRACE_MS = 5_000;
/** A socket this many times past its bound is closed at once. */
export const SLOW_HARD_FACTOR = 8;

export interface HubOptions {
  pingIntervalMs: number;
  clock: Clock;
  log: Logger;
  memberRole: MemberRoleLookup;
  /** bytes a socket may have waiting; past it the socket is closed with CLOSE_TOO_SLOW */
  maxBufferedBytes?: number;
  /** counts sockets closed for being too far behind and the events they missed (/metrics) */
  onSlowClosed?(): void;
}

/**
 * Real-time events (docs/api.md): forwards every committed event to the WebSockets of its workspace, and only those.
 * Modules publish through the bus; the hub is one of its after-commit listeners. A socket
 * whose user was removed is closed (4003) at the next check: before a delivery when the last
 * check is older than MEMBERSHIP_RECHECK_MS, at every keepalive ping, and always before a QR
 * (`session_qr` goes only to members who may manage sessions, docs/team-and-billing.md).
 *
 * Fan-out: every socket of a workspace joins the workspace's topic, and an event other than a
 * QR is serialised once and handed to Bun's native `publish` (one call, written to every socket
 * in native code) after the stale membership checks ran. QRs are sent socket by socket, each
 * after its member's role was read.
 *
 * Order: an event that needs no membership read (the usual case) goes out at once; one that
 * does waits for its reads, and every event after it waits behind it, so sockets see events
 * in the order they committed.
 */
export class RealtimeHub {
  private byWorkspace = new Map<string, WorkspaceSockets>();
  private checkedAt = new WeakMap<RealtimeClient, number>();
  /** when each socket's unwritten events last went past the bound (absent: within it) */
  private behindSince = new WeakMap<RealtimeClient, number>();
  private pinger: ReturnType<typeof setInterval> | null = null;
  private publisher: TopicPublisher | null = null;
  /** deliveries waiting for membership reads, in commit order (null when none waits) */
  private waiting: Promise<void> | null = null;
  private pinging = false;

  constructor(
    bus: EventBus,
    private opts: HubOptions,
  ) {
    // a workspace's sockets get its events whichever node of a cluster committed them
    bus.subscribe((e) => this.deliver(e), { fromOtherNodes: true });
  }

  /** Lets the hub publish to topics (the server that upgraded the latest socket). */
  usePublisher(publish: TopicPublisher): void {
    this.publisher = publish;
  }

  /** Registers an open socket of a workspace (its membership was just checked by the guard). */
  add(client: RealtimeClient): void {
    let ws = this.byWorkspace.get(client.workspaceId);
    const now = this.now();
    if (!ws) this.byWorkspace.set(client.workspaceId, (ws = { clients: new Set(), allSubscribed: true, oldestCheck: now, behindAtLook: 0, sentSinceLook: 0 }));
    ws.clients.add(client);
    if (client.subscribe) client.subscribe(workspaceTopic(client.workspaceId));
    else ws.allSubscribed = false;
    this.checkedAt.set(client, now);
    // keepalive pings run only while someone listens, so an idle server keeps no timer
    this.pinger ??= setInterval(() => this.pingAll(), this.opts.pingIntervalMs);
  }

  /** Forgets a closed socket. */
  remove(client: RealtimeClient): void {
    const ws = this.byWorkspace.get(client.workspaceId);
    if (!ws || !ws.clients.delete(client)) return;
    client.unsubscribe?.(workspaceTopic(client.workspaceId));
    if (!ws.clients.size) this.byWorkspace.delete(client.workspaceId);
    if (!this.byWorkspace.size && this.pinger) {
      clearInterval(this.pinger);
      this.pinger = null;
    }
  }

  /** Closes every socket (server shutdown: open sockets would hold a graceful stop forever). */
  closeAll(code: number, reason: string): void {
    for (const ws of [...this.byWorkspace.values()]) {
      for (const c of [...ws.clients]) {
        this.remove(c);
        try {
          c.close(code, reason);
        } catch {
          // already closing
        }
      }
    }
  }

  /** Open sockets of one user (all workspaces). */
  socketsOf(userId: string): number {
    let n = 0;
    for (const ws of this.byWorkspace.values()) for (const c of ws.clients) if (c.userId === userId) n++;
    return n;
  }

  /** Number of open sockets (all workspaces). */
  size(): number {
    let n = 0;
    for (const ws of this.byWorkspace.values()) n += ws.clients.size;
    return n;
  }

  private deliver(e: AppEvent): void {
    const ws = this.byWorkspace.get(e.workspaceId);
    if (!this.waiting && (!ws || (e.event !== "session_qr" && !this.stale(ws)))) return this.deliverChecked(e);
    const run = (this.waiting ?? Promise.resolve())
      .then(() => this.deliverAfterChecks(e))
      .catch((err) => this.opts.log.warn("websocket delivery failed", { err }));
    this.waiting = run;
    void run.then(() => {
      if (this.waiting === run) this.waiting = null;
    });
  }

  /** Reads the memberships the event needs, then delivers it. */
  private async deliverAfterChecks(e: AppEvent): Promise<void> {
    const ws = this.byWorkspace.get(e.workspaceId);
    if (!ws) return;
    if (e.event === "session_qr") {
      this.closeSlow(ws);
      const text = JSON.stringify({ event: e.event, timestamp: e.timestamp, data: e.data });
      ws.sentSinceLook += wireBytes(text);
      return this.sendEach(ws, text);
    }
    await this.recheckStale(ws);
    this.deliverChecked(e);
  }

  /** Delivers an event whose sockets' memberships are fresh. */
  private deliverChecked(e: AppEvent): void {
    const ws = this.byWorkspace.get(e.workspaceId);
    if (!ws || !ws.clients.size) return;
    const text = JSON.stringify({ event: e.event, timestamp: e.timestamp, data: e.data });
    this.closeSlow(ws);
    if (!ws.clients.size) return;
    ws.sentSinceLook += wireBytes(text);
    if (ws.allSubscribed && this.publisher) {
      try {
        this.publisher(workspaceTopic(e.workspaceId), text);
      } catch (err) {
        this.opts.log.warn("websocket publish failed", { err });
      }
      return;
    }
    for (const c of [...ws.clients]) this.trySend(c, text);
  }

  /**
   * Closes the sockets that stay behind (a client that does not read): more than the bound of
   * unwritten events for SLOW_GRACE_MS, or SLOW_HARD_FACTOR times the bound at once. A burst a
   * reading client catches up with is not a reason; a client that never reads would otherwise
   * grow the server's memory with every event, and lose the next ones in silence once the
   * socket's own limit is reached. Closed with CLOSE_TOO_SLOW, its client knows it missed
   * events and reloads.
   *
   * A socket's unwritten bytes grow only by what the hub hands it, so while the most any socket
   * had waiting at the last look plus everything handed out since stays within the bound, no
   * socket can be past it and the look (a native call per socket) is skipped: a workspace's
   * burst of small events costs one look per few hundred events instead of one per event.
   * Half the bound is left as headroom for what a socket is sent outside the hub (its `ready`,
   * its pongs).
   */
  private closeSlow(ws: WorkspaceSockets): void {
    const max = this.opts.maxBufferedBytes;
    if (!max) return;
    if (ws.behindAtLook + ws.sentSinceLook <= max / 2) return;
    ws.sentSinceLook = 0;
    ws.behindAtLook = 0;
    const now = this.now();
    for (const c of [...ws.clients]) {
      let behind: number;
      try {
        behind = c.buffered?.() ?? 0;
      } catch {
        continue; // closing already
      }
      if (behind > ws.behindAtLook) ws.behindAtLook = behind;
      if (behind <= max) {
        this.behindSince.delete(c);
        continue;
      }
      const since = this.behindSince.get(c) ?? now;
      this.behindSince.set(c, since);
      if (behind <= max * SLOW_HARD_FACTOR && now - since < SLOW_GRACE_MS) continue;
      this.remove(c);
      this.opts.onSlowClosed?.();
      this.opts.log.info("real-time socket closed: too far behind", { userId: c.userId, bufferedBytes: behind });
      try {
        c.close(CLOSE_TOO_SLOW, "too far behind; reload");
      } catch {
        // already closing
      }
      // the close frame waits behind the buffered events: a client that reads gets it (and
      // reloads); one that never reads would keep that buffer for as long as its connection
      // lives, so the connection is dropped after the grace period
      if (c.terminate) {
        const drop = c.terminate;
        const timer = setTimeout(() => {
          try {
            drop();
          } catch {
            // gone already
          }
        }, SLOW_GRACE_MS);
        (timer as { unref?: () => void }).unref?.();
      }
    }
  }

  /** A QR links a phone to the workspace: each member's role is read fresh, and only managers get it. */
  private async sendEach(ws: WorkspaceSockets, text: string): Promise<void> {
    for (const c of [...ws.clients]) {
      if (!(await this.stillMember(c, 0))) continue;
      if (!can(c.role, "manage")) continue;
      this.trySend(c, text);
    }
  }

  /** Whether some socket's last membership check may be older than MEMBERSHIP_RECHECK_MS. */
  private stale(ws: WorkspaceSockets): boolean {
    const now = this.now();
    return !(now - ws.oldestCheck < MEMBERSHIP_RECHECK_MS && now >= ws.oldestCheck);
  }

  /** Re-checks the sockets whose last membership check is older than MEMBERSHIP_RECHECK_MS (usually none). */
  private async recheckStale(ws: WorkspaceSockets): Promise<void> {
    if (!this.stale(ws)) return;
    const now = this.now();
    let oldest = now;
    for (const c of [...ws.clients]) {
      if (!(await this.stillMember(c, MEMBERSHIP_RECHECK_MS))) continue;
      oldest = Math.min(oldest, this.checkedAt.get(c) ?? now);
    }
    ws.oldestCheck = oldest;
  }

  private trySend(c: RealtimeClient, text: string): void {
    try {
      c.send(text);
    } catch (err) {
      this.opts.log.warn("websocket send failed", { err });
    }
  }

  /**
   * Reads the member's role again when the last check is older than `maxAgeMs`; a socket
   * whose user is gone is closed and forgotten.
   */
  private async stillMember(c: RealtimeClient, maxAgeMs: number): Promise<boolean> {
    const now = this.now();
    if (maxAgeMs > 0 && now - (this.checkedAt.get(c) ?? 0) < maxAgeMs) return true;
    const role = await this.opts.memberRole(c.workspaceId, c.userId);
    if (!role) {
      this.remove(c);
      try {
        c.close(CLOSE_NOT_A_MEMBER, "no longer a member of the workspace");
      } catch {
        // already closing
      }
      return false;
    }
    c.role = role;
    this.checkedAt.set(c, now);
    return true;
  }

  private pingAll(): void {
    // a round whose membership reads are still running is not doubled
    if (this.pinging) return;
    this.pinging = true;
    this.pingRound()
      .catch((err) => this.opts.log.warn("websocket keepalive failed", { err }))
      .finally(() => (this.pinging = false));
  }

  private async pingRound(): Promise<void> {
    for (const ws of [...this.byWorkspace.values()]) {
      for (const c of [...ws.clients]) {
        if (!(await this.stillMember(c, MEMBERSHIP_RECHECK_MS))) continue;
        try {
          c.ping();
        } catch {
          // a socket that cannot be pinged is closing; its close handler removes it
        }
      }
    }
  }

  private now(): number {
    return this.opts.clock.now().getTime();
  }
}

/** At most the bytes a text takes on a socket: UTF-8 (3 bytes a UTF-16 unit at most) and a frame header. */
function wireBytes(text: string): number {
  return text.length * 3 + 16;
}
