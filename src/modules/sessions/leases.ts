import type { Clock } from "../../clock.ts";
import type { DB } from "../../db/store.ts";
import type { Logger } from "../../log.ts";
import { liveNodeIds, nodeStopped, registerNode, touchNode } from "../nodes/repo.ts";
import type { Fence } from "./keys-repo.ts";
import { acquireLease, liveLeases, orphanSessions, releaseLease, releaseLeasesOf, renewLeases, sessionsToHold, stalePending } from "./lease-repo.ts";

/** What the keeper asks of the session manager. */
export interface LinkControl {
  /** Connect these sessions from their stored links: their leases were just taken by this node. */
  take(ids: string[]): void;
  /** Close the link of a session this node no longer holds; nothing is written to the database. */
  drop(id: string, why: string): Promise<void>;
  /** Whether a held session may move to another node now (not while a QR waits for its scan). */
  movable(id: string): boolean;
  /** Sessions left waiting for a QR scan by a node that is gone: back to disconnected. */
  resetPending(ids: string[]): Promise<void>;
}

export interface LeaseOptions {
  db: DB;
  clock: Clock;
  log: Logger;
  nodeId: string;
  version: string;
  leaseMs: number;
}

/** Sessions a node above its share gives away per heartbeat. */
const RELEASE_PER_BEAT = 2;

/**
 * The session leases of this node (docs/cluster.md). Every `leaseMs / 4` the heartbeat renews
 * the node's leases in one statement, records the node as seen, resets QR sessions left by a
 * dead node, and evens the sessions out: a node below its share (ceil(sessions / live nodes))
 * takes sessions no live node holds, one above it gives a few away. A separate guard closes
 * every link once the last successful renewal is older than 70 % of the lease, before any
 * other node may take the sessions over; `usable` makes the same check synchronously, so a
 * process that was frozen sends nothing once it wakes.
 */
export class LeaseKeeper {
  readonly nodeId: string;
  readonly heartbeatMs: number;
  /** a node silent this long no longer counts among the live nodes that share the sessions */
  readonly nodeStaleMs: number;
  private held = new Map<string, number>();
  /** when this node took each held session (a session moves on only after a lease's time here) */
  private heldSince = new Map<string, number>();
  private deadline = Number.POSITIVE_INFINITY;
  private links?: LinkControl;
  private beat?: ReturnType<typeof setInterval>;
  private guard?: ReturnType<typeof setInterval>;
  private ticking: Promise<void> | null = null;
  private started = false;
  private stopped = false;
  /** sessions this node took after another node's lease ran out or was released */
  takeovers = 0;
  /** sessions this node gave away to even out the load */
  handedOff = 0;
  /** times the node closed its links because it could not renew in time */
  expiries = 0;

  constructor(private o: LeaseOptions) {
    this.nodeId = o.nodeId;
    this.heartbeatMs = Math.round(o.leaseMs / 4);
    this.nodeStaleMs = Math.round(o.leaseMs / 2);
  }

  /** How long after the last successful renewal the node closes its links by itself. */
  get localDeadlineMs(): number {
    return Math.round(this.o.leaseMs * 0.7);
  }

  attach(links: LinkControl): void {
    this.links = links;
  }

  /**
   * Registers the node, frees the leases no live process can hold (SQLite: every one, one
   * process per data dir; PostgreSQL: only this node id's, left by its previous run; either way
   * not those this process took before its start), starts
   * the heartbeat and the guard and runs the first heartbeat.
   */
  async start(url: string | null): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    const { db } = this.o;
    const now = this.now();
    await registerNode(db, { id: this.nodeId, url, version: this.o.version, now });
    // the leases this process took before its start (a connect) stay
    let freed = 0;
    for (const l of await liveLeases(db, now)) {
      if (db.engine !== "sqlite" && l.nodeId !== this.nodeId) continue;
      if (l.nodeId === this.nodeId && this.held.get(l.sessionId) === l.epoch) continue;
      await releaseLease(db, l.sessionId, l.nodeId, l.epoch);
      freed++;
    }
    if (freed) this.o.log.info("freed session leases left by a previous run", { leases: freed });
    this.deadline = this.held.size ? Math.min(this.deadline, now + this.localDeadlineMs) : Number.POSITIVE_INFINITY;
    this.beat = setInterval(() => void this.tick(), this.heartbeatMs);
    this.guard = setInterval(() => this.checkDeadline(), Math.max(20, Math.min(250, Math.round(this.o.leaseMs / 40))));
    await this.tick();
  }

  /** The sessions this node holds now. */
  heldIds(): string[] {
    this.checkDeadline();
    return [...this.held.keys()];
  }

  /** Whether this node holds the session and may use its link now (the local deadline is checked here too). */
  usable(id: string): boolean {
    this.checkDeadline();
    return this.held.has(id);
  }

  /** Whether the heartbeat runs (a runtime that never started holds leases only for its own connects). */
  get running(): boolean {
    return this.started && !this.stopped;
  }

  /** The fencing token of a held session, for its writes. */
  fence(id: string): Fence | undefined {
    const epoch = this.held.get(id);
    return epoch === undefined ? undefined : { nodeId: this.nodeId, epoch };
  }

  /**
   * Takes the session's lease for a link opened here (a user's connect: `force` takes it from
   * whichever node held it, which closes its link at its next heartbeat). Resolves to the fence,
   * or undefined when another node holds it and `force` is false.
   */
  async acquire(id: string, force: boolean): Promise<Fence | undefined> {
    // held here already: the same lease (a new epoch would fence off the link's own store)
    const mine = this.fence(id);
    if (mine) return mine;
    const now = this.now();
    const epoch = await acquireLease(this.o.db, { sessionId: id, nodeId: this.nodeId, now, expiresAt: now + this.o.leaseMs, force });
    if (epoch === null) return undefined;
    if (this.held.size === 0 && this.started) this.deadline = now + this.localDeadlineMs;
    this.held.set(id, epoch);
    this.heldSince.set(id, now);
    return { nodeId: this.nodeId, epoch };
  }

  /** Frees a held session's lease (its link was closed here). */
  async release(id: string): Promise<void> {
    const epoch = this.held.get(id);
    if (epoch === undefined) return;
    this.unhold(id);
    await releaseLease(this.o.db, id, this.nodeId, epoch);
  }

  /** A write under the session's lease was refused (another node holds it now): forgotten here, its link closed. */
  async lost(id: string, why: string): Promise<void> {
    this.unhold(id);
    await this.links?.drop(id, why);
  }

  /** One heartbeat (serialised: a slow one is not overlapped by the next). */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.ticking ??= this.beatOnce()
      .catch((err) => this.o.log.warn("session lease heartbeat failed", { err }))
      .finally(() => (this.ticking = null));
    return this.ticking;
  }

  /** Stops the heartbeat, frees every lease of the node (after its links closed) and marks it stopped. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.beat);
    clearInterval(this.guard);
    await this.ticking;
    const held = this.held.size;
    this.held.clear();
    this.heldSince.clear();
    if (!this.started) return;
    await releaseLeasesOf(this.o.db, this.nodeId);
    await nodeStopped(this.o.db, this.nodeId, this.now());
    this.o.log.info("session leases released", { node: this.nodeId, sessions: held });
  }

  private async beatOnce(): Promise<void> {
    const { db, log } = this.o;
    const started = this.now();
    // only what was held when the renewal began can be missing from its answer (a connect meanwhile is not)
    const before = new Map(this.held);
    const kept = await renewLeases(db, this.nodeId, started, started + this.o.leaseMs);
    if (this.stopped) return;
    // renewed in time: the links may stay open until 70 % of a lease after this renewal began
    this.deadline = started + this.localDeadlineMs;
    for (const [id, epoch] of before) {
      if (kept.get(id) === epoch || this.held.get(id) !== epoch) continue;
      this.unhold(id);
      log.warn("session lease lost to another node; closing its link", { sessionId: id });
      await this.links?.drop(id, "lease lost");
    }
    // a lease renewed for a link this node closed meanwhile (its deadline passed mid-renewal): free it
    for (const [id, epoch] of kept) if (!this.held.has(id)) await releaseLease(db, id, this.nodeId, epoch);
    await touchNode(db, this.nodeId, this.now());
    if (!this.links) return;
    const now = this.now();
    const stale = await stalePending(db, now);
    if (stale.length) await this.links.resetPending(stale);
    await this.balance(now);
  }

  /** Evens the sessions out over the live nodes. */
  private async balance(now: number): Promise<void> {
    const { db, log } = this.o;
    // SQLite: one process per data dir, so a previous process that crashed a moment ago is not a node
    const live = new Set(db.engine === "sqlite" ? [] : await liveNodeIds(db, now - this.nodeStaleMs));
    live.add(this.nodeId);
    const total = await sessionsToHold(db, now);
    const share = Math.ceil(total / live.size);
    if (this.held.size < share) {
      // alone, oldest first; beside other nodes, in random order so they rarely race for the same rows
      const orphans = await orphanSessions(db, now, 1000);
      if (live.size > 1) shuffle(orphans);
      const taken: string[] = [];
      for (const o of orphans) {
        if (this.held.size >= share || this.stopped) break;
        if (!(await this.acquire(o.id, false))) continue;
        taken.push(o.id);
        if (o.lastNode && o.lastNode !== this.nodeId) this.takeovers++;
      }
      if (taken.length) {
        log.info("took sessions over", { sessions: taken.length, share, nodes: live.size });
        this.links!.take(taken);
      }
    } else if (this.held.size > share && live.size > 1) {
      // not a session that just arrived (a burst of pairings on one node is not moved at once)
      const settled = (id: string) => now - (this.heldSince.get(id) ?? 0) >= this.o.leaseMs;
      const give = [...this.held.keys()].filter((id) => settled(id) && this.links!.movable(id)).slice(0, Math.min(RELEASE_PER_BEAT, this.held.size - share));
      for (const id of give) {
        await this.links!.drop(id, "handed to a node with fewer sessions");
        await this.release(id);
        this.handedOff++;
      }
      if (give.length) log.info("handed sessions over to even out the nodes", { sessions: give.length, share, nodes: live.size });
    }
  }

  /** Past the local deadline: every link closes before any other node may take the sessions. */
  private checkDeadline(): void {
    if (!this.started || this.stopped || this.held.size === 0 || this.now() < this.deadline) return;
    const ids = [...this.held.keys()];
    this.held.clear();
    this.heldSince.clear();
    this.expiries++;
    this.o.log.warn("session leases could not be renewed in time; closing every link", { sessions: ids.length });
    for (const id of ids) void this.links?.drop(id, "lease not renewed in time");
  }

  private unhold(id: string): void {
    this.held.delete(id);
    this.heldSince.delete(id);
  }

  private now(): number {
    // wall time on purpose: leases are compared across processes (an injected test clock is not)
    return Date.now();
  }
}

function shuffle<T>(a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}
