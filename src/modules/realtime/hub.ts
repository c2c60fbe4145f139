import { can } from "../../auth/permissions.ts";
import type { Clock } from "../../clock.ts";
import type { AppEvent, EventBus } from "../../events/bus.ts";
import type { Logger } from "../../log.ts";
import type { Role } from "../users/table.ts";
import type { MemberRoleLookup } from "./repo.ts";

/** One open WebSocket as the hub sees it. */
export interface RealtimeClient {
  workspaceId: string;
  userId: string;
  /** the member's role when last checked */
  role: Role;
  send(text: string): void;
  ping(): void;
  close(code: number, reason: string): void;
}

/** Membership of a socket's user is read again when the last check is older than this. */
export const MEMBERSHIP_RECHECK_MS = 5_000;
/** Close code of a socket whose user left the workspace. */
export const CLOSE_NOT_A_MEMBER = 4003;

export interface HubOptions {
  pingIntervalMs: number;
  clock: Clock;
  log: Logger;
  memberRole: MemberRoleLookup;
}

/**
 * D10: forwards every committed event to the WebSockets of its workspace, and only those.
 * Modules publish through the bus; the hub is one of its after-commit listeners. A socket
 * whose user was removed is closed (4003) at the next check: before a delivery when the last
 * check is older than MEMBERSHIP_RECHECK_MS, at every keepalive ping, and always before a QR
 * (`session_qr` goes only to members who may manage sessions, D5).
 */
export class RealtimeHub {
  private byWorkspace = new Map<string, Set<RealtimeClient>>();
  private checkedAt = new WeakMap<RealtimeClient, number>();
  private pinger: ReturnType<typeof setInterval> | null = null;

  constructor(
    bus: EventBus,
    private opts: HubOptions,
  ) {
    bus.subscribe((e) => this.deliver(e));
  }

  /** Registers an open socket of a workspace (its membership was just checked by the guard). */
  add(client: RealtimeClient): void {
    let set = this.byWorkspace.get(client.workspaceId);
    if (!set) this.byWorkspace.set(client.workspaceId, (set = new Set()));
    set.add(client);
    this.checkedAt.set(client, this.now());
    // keepalive pings run only while someone listens, so an idle server keeps no timer
    this.pinger ??= setInterval(() => this.pingAll(), this.opts.pingIntervalMs);
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

  /** Closes every socket (server shutdown: open sockets would hold a graceful stop forever). */
  closeAll(code: number, reason: string): void {
    for (const set of [...this.byWorkspace.values()]) {
      for (const c of [...set]) {
        this.remove(c);
        try {
          c.close(code, reason);
        } catch {
          // already closing
        }
      }
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
    const qr = e.event === "session_qr";
    const text = JSON.stringify({ event: e.event, timestamp: e.timestamp, data: e.data });
    for (const c of [...set]) {
      // a QR links a phone to the workspace: the role is read fresh for it
      if (!this.stillMember(c, qr ? 0 : MEMBERSHIP_RECHECK_MS)) continue;
      if (qr && !can(c.role, "manage")) continue;
      try {
        c.send(text);
      } catch (err) {
        this.opts.log.warn("websocket send failed", { err });
      }
    }
  }

  /**
   * Reads the member's role again when the last check is older than `maxAgeMs`; a socket
   * whose user is gone is closed and forgotten.
   */
  private stillMember(c: RealtimeClient, maxAgeMs: number): boolean {
    const now = this.now();
    if (maxAgeMs > 0 && now - (this.checkedAt.get(c) ?? 0) < maxAgeMs) return true;
    const role = this.opts.memberRole(c.workspaceId, c.userId);
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
    for (const set of [...this.byWorkspace.values()]) {
      for (const c of [...set]) {
        if (!this.stillMember(c, MEMBERSHIP_RECHECK_MS)) continue;
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
