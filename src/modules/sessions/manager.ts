import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { NetworkError, type ConnectOptions, type DriverEvent } from "../../network/driver.ts";
import { recentOutbound } from "../messages/network-lookup.ts";
import { decryptCredentials, encryptCredentials, sessionCredentialStore, wipeSessionKeys } from "./credentials.ts";
import type { LiveQr } from "./model.ts";
import { qrDataUrl } from "./qr-image.ts";
import { Pauses, restorable, restoreGap } from "./restore.ts";
import { OutcomeWaiters } from "./waiters.ts";
import { deleteSession, getSession, sessionForNetworkEvent, updateSession } from "./repo.ts";
import { fenceStillHolds } from "./keys-repo.ts";
import { markLinked } from "./lease-repo.ts";
import type { LinkControl } from "./leases.ts";
import { hostUrl } from "../../http/public-url.ts";
import type { SessionPatch, SessionRow } from "./repo.ts";

/** Reasons after which the link is gone for good: credentials and number are wiped. */
const UNLINKING = new Set(["user_request", "logged_out", "banned", "bad_session"]);

/**
 * The one session manager of a runtime (built by createServices; its routes get it from there).
 * Owns the live connections: starts and stops them on the driver, turns the driver's events
 * into status changes (rows) and events (bus), keeps the current QR of each pending session,
 * and brings back connected (and dropped) sessions after a restart. The events of a session
 * are handled one after another, in order, so a status written to the database follows the
 * network's own order; each reads the session's row in the transaction that changes it.
 *
 * In a cluster (docs/cluster.md) a session's link lives on the node holding its lease
 * (`deps.leases`): a connect here takes the lease, the lease keeper hands this manager the
 * sessions it took over (`take`) and the links it lost (`drop`), and the driver's events of a
 * session this node no longer holds are ignored.
 */
export class SessionManager implements LinkControl {
  /** Sessions the driver is working on (linking, connected or reconnecting). */
  private active = new Set<string>();
  private qrs = new Map<string, LiveQr>();
  private waiters = new OutcomeWaiters();
  /** Sessions whose DELETE is under way: they answer 404 so nothing starts on a row about to go. */
  private deleting = new Set<string>();
  private stopping = false;
  private pauses = new Pauses();
  /** the driver events of each session still being handled, in order */
  private chains = new Map<string, Promise<void>>();
  /** sessions taken over by this node, waiting for their reconnect */
  private queue: string[] = [];
  private draining: Promise<void> | null = null;

  constructor(private deps: AppDeps) {
    deps.leases.attach(this);
    deps.network.onEvent((e) => {
      if (e.type === "inbound" || e.type === "receipt" || e.type === "identity") return; // messaging handles these
      const next = (this.chains.get(e.sessionId) ?? Promise.resolve())
        .then(() => this.onDriverEvent(e))
        .catch((err) => deps.log.error("session event failed", { sessionId: e.sessionId, event: e.type, err }))
        .finally(() => {
          if (this.chains.get(e.sessionId) === next) this.chains.delete(e.sessionId);
        });
      this.chains.set(e.sessionId, next);
    });
  }

  /** Connect (docs/sessions.md): disconnected -> qr_pending (then connected); qr_pending answers again; connected is 409. */
  async connect(workspaceId: string, id: string): Promise<SessionRow> {
    let added = false;
    const row = await this.deps.db
      .tx(async () => {
        const row = await this.require(workspaceId, id);
        if (row.status === "connected") throw errors.conflict("The session is already connected");
        if (row.status === "qr_pending" && this.active.has(id)) return null;
        await this.change(row, { status: "qr_pending", lastDisconnectReason: null });
        // in the transaction: a second connect's transaction sees the session live and starts nothing
        added = !this.active.has(id);
        this.active.add(id);
        return row;
      })
      .catch((err) => {
        if (added) this.active.delete(id);
        throw err;
      });
    if (!row) return this.require(workspaceId, id);
    const outcome = this.waiters.waitFor(id, this.deps.config.sessionConnectWaitMs);
    try {
      // the node that connects holds the session; a node that held it closes its link at its next heartbeat
      await this.deps.leases.acquire(id, true);
      await this.deps.network.connect(id, await this.connectOptions(row));
    } catch (err) {
      outcome.cancel();
      const detail = err instanceof Error ? err.message : String(err);
      // a stored link the driver cannot read is useless: forget it so the next connect pairs anew
      if (err instanceof NetworkError && err.code === "bad_credentials") {
        await this.deps.db.tx(() => this.change(row, { credentials: null }, false));
      }
      await this.endSession(id, "error", detail);
      throw errors.chatappUnavailable(`The network could not be reached: ${detail}`);
    }
    const o = await outcome.promise;
    if (o.kind === "failed" && (this.deleting.has(id) || !(await getSession(this.deps.db, workspaceId, id)))) throw errors.notFound("Session");
    if (o.kind === "failed") throw errors.chatappUnavailable(`The session could not connect (${o.reason}${o.detail ? `: ${o.detail}` : ""})`);
    return this.require(workspaceId, id);
  }

  /** Disconnect (docs/sessions.md): unlinks the device (credentials wiped, logout on the network); on disconnected 409. */
  async disconnect(workspaceId: string, id: string): Promise<void> {
    await this.deps.db.tx(async () => {
      const row = await this.require(workspaceId, id);
      // a session still reconnecting by itself counts as live: the user must be able to stop it
      if (row.status === "disconnected" && !this.active.has(id)) throw errors.conflict("The session is already disconnected");
      await this.unlink(row);
    });
    await this.logout(id);
  }

  /**
   * DELETE (docs/sessions.md): a live session is unlinked first, then the row goes. From the first moment the
   * session answers 404 to connect, disconnect, QR and pairing code, so nothing can start on a
   * row that is about to vanish.
   */
  async remove(workspaceId: string, id: string): Promise<void> {
    // read and marked in one transaction: a request after it sees the session as gone
    const row = await this.deps.db.tx(async () => {
      const row = await this.require(workspaceId, id);
      this.deleting.add(id);
      return row;
    });
    try {
      if (row.status !== "disconnected" || this.active.has(id)) {
        await this.deps.db.tx(() => this.unlink(row));
        await this.logout(id);
      }
      await this.deps.db.tx(() => deleteSession(this.deps.db, workspaceId, id));
      // nothing of the session may outlive its row on the network side
      if (this.active.has(id) || this.qrs.has(id)) {
        this.active.delete(id);
        this.qrs.delete(id);
        await this.logout(id, false);
      }
    } finally {
      this.deleting.delete(id);
    }
  }

  /** Whether the driver is working on the session (linking, connected or reconnecting). */
  isLive(id: string): boolean {
    return this.active.has(id);
  }

  /** The current QR (docs/sessions.md) while qr_pending (waits briefly for the first one), else 409. */
  async qr(workspaceId: string, id: string): Promise<LiveQr> {
    const row = await this.require(workspaceId, id);
    if (row.status !== "qr_pending") throw errors.conflict(`No QR code: the session is ${row.status}`);
    if (!this.qrs.has(id) && this.active.has(id)) {
      const w = this.waiters.waitFor(id, Math.min(5_000, this.deps.config.sessionConnectWaitMs));
      if (this.qrs.has(id)) w.cancel();
      else await w.promise;
    }
    const live = this.qrs.get(id);
    if (!live) throw errors.conflict("No QR code is available for this session yet; retry shortly");
    return live;
  }

  /** Linking by phone number while qr_pending. */
  async pairingCode(workspaceId: string, id: string, phoneNumber: string): Promise<string> {
    const row = await this.require(workspaceId, id);
    if (row.status !== "qr_pending" || !this.active.has(id)) throw errors.conflict(`No pairing in progress: the session is ${row.status}`);
    try {
      return await this.deps.network.requestPairingCode(id, phoneNumber);
    } catch (err) {
      if (err instanceof NetworkError && err.code === "not_pending") throw errors.conflict("The session is not waiting to be linked yet; retry shortly");
      throw errors.chatappUnavailable(`The network refused the pairing code: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * After a start: the lease keeper starts (this node's row, its first heartbeat), sessions left
   * waiting for a QR by a process that is gone go back to disconnected, and the sessions this
   * node takes (all of them on a single node; its share in a cluster) reconnect with their
   * stored link, one after another with a random gap (`sessionRestoreGapMs`) so a server with
   * many sessions does not open them all at once. Resolves when those were started or on stop().
   */
  async restore(): Promise<void> {
    const { config } = this.deps;
    await this.deps.leases.start(config.publicUrl ?? hostUrl(config.host, config.port));
    await this.draining;
  }

  // ---- the lease keeper's side (LinkControl) ----

  /** Sessions whose leases this node just took: reconnected in the background, in order, with gaps. */
  take(ids: string[]): void {
    this.queue.push(...ids);
    this.draining ??= this.drain().finally(() => (this.draining = null));
  }

  /** A link this node no longer holds: closed without unlinking and without writing anything. */
  async drop(id: string, why: string): Promise<void> {
    const wasLive = this.active.delete(id);
    this.qrs.delete(id);
    this.waiters.settle(id, { kind: "failed", reason: "moved", detail: why });
    if (!wasLive) return;
    try {
      await this.deps.network.disconnect(id, { logout: false });
    } catch (err) {
      this.deps.log.warn("closing a moved session's link failed", { sessionId: id, err });
    }
  }

  /** A session whose QR waits for its scan stays where it is. */
  movable(id: string): boolean {
    return !this.qrs.has(id) && !this.deleting.has(id);
  }

  async resetPending(ids: string[]): Promise<void> {
    for (const id of ids) {
      await this.deps.db.tx(async () => {
        // read again in the transaction: a connect may have taken it meanwhile
        const fresh = await sessionForNetworkEvent(this.deps.db, id);
        if (fresh?.status === "qr_pending" && !this.active.has(id)) await this.change(fresh, { status: "disconnected" }, false);
      });
    }
  }

  private async drain(): Promise<void> {
    for (let first = true; this.queue.length; first = false) {
      if (!first) await this.pauses.pause(restoreGap(this.deps.config.sessionRestoreGapMs));
      if (this.stopping) return;
      await this.reconnect(this.queue.shift()!).catch((err) => this.deps.log.error("reconnecting a session failed", { err }));
    }
  }

  /** Reconnects one session whose lease this node took, from its stored link. */
  private async reconnect(id: string): Promise<void> {
    if (!this.deps.leases.usable(id)) return; // lost again meanwhile
    // read again: a user may have connected, disconnected or deleted it meanwhile
    const row = await sessionForNetworkEvent(this.deps.db, id);
    if (!row || this.active.has(id) || this.deleting.has(id) || !restorable(row)) {
      if (!this.active.has(id)) await this.deps.leases.release(id);
      return;
    }
    this.active.add(id); // before any await: a connect meanwhile sees the session live
    const opts = await this.connectOptions(row);
    if (!opts.credentials) {
      await this.endSession(id, "error", "no stored credentials");
      return;
    }
    try {
      await this.deps.network.connect(id, opts);
    } catch (err) {
      if (!this.stopping) await this.endSession(id, "error", err instanceof Error ? err.message : String(err));
    }
  }

  /** Stops reacting to status changes (shutdown closes connections on purpose); credentials are still saved. */
  stop(): void {
    this.stopping = true;
    this.pauses.stop();
    this.waiters.settleAll({ kind: "timeout" });
  }

  /** Resolves once the driver events under way are handled (before the database closes). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.chains.values()]);
  }

  // ---- driver events ----

  /** One driver event of a session (after the previous one of that session was handled). */
  private async onDriverEvent(e: DriverEvent): Promise<void> {
    // the lease keeper checks its deadline here too: a node that was frozen drops its links first
    if (this.deps.leases.running && !this.deps.leases.usable(e.sessionId) && this.active.has(e.sessionId)) {
      await this.drop(e.sessionId, "lease not held");
      return;
    }
    switch (e.type) {
      case "credentials":
        return this.onCredentials(e.sessionId, e.credentials);
      case "qr":
        return this.onQr(e.sessionId, e.qr, e.expiresAt);
      case "connected":
        return this.onConnected(e.sessionId, e.phoneNumber);
      case "disconnected":
        return this.onDisconnected(e.sessionId, e.reason, e.willReconnect, e.detail);
    }
  }

  private async onCredentials(id: string, credentials: string | null): Promise<void> {
    const sealed = credentials === null ? null : encryptCredentials(this.deps.secrets.credentialKey, id, credentials);
    const fence = this.deps.leases.fence(id);
    const refused = await this.deps.db.tx(async () => {
      // checked in the transaction: an unlink (which wipes the link) commits before or after it, never between
      if (sealed !== null && !this.active.has(id)) return false;
      // a link opened under a lease another node has taken since writes nothing
      if (fence && !(await fenceStillHolds(this.deps.db, id, fence))) return true;
      const row = await sessionForNetworkEvent(this.deps.db, id);
      if (row) await this.change(row, { credentials: sealed }, false);
      return false;
    });
    if (refused) await this.fenced(id);
  }

  private async onQr(id: string, qr: string, expiresAt: Date): Promise<void> {
    if (this.stopping || !this.active.has(id)) return;
    const live: LiveQr = { qr, qrDataUrl: qrDataUrl(qr), expiresAt: expiresAt.toISOString() };
    const shown = await this.deps.db.tx(async () => {
      if (this.stopping || !this.active.has(id)) return false;
      const row = await sessionForNetworkEvent(this.deps.db, id);
      if (!row) return false;
      this.qrs.set(id, live);
      if (row.status !== "qr_pending") await this.change(row, { status: "qr_pending" });
      await this.deps.bus.publish(row.workspaceId, "session_qr", { sessionId: id, ...live });
      return true;
    });
    if (shown) this.waiters.settle(id, { kind: "qr" });
  }

  private async onConnected(id: string, phoneNumber: string): Promise<void> {
    const connected = await this.deps.db.tx(async () => {
      if (this.stopping || !this.active.has(id)) return null;
      const row = await sessionForNetworkEvent(this.deps.db, id);
      if (!row) return null;
      this.qrs.delete(id);
      const relinked = row.status === "connected" && row.phoneNumber === phoneNumber;
      if (!relinked) {
        await this.deps.bus.publish(row.workspaceId, "session_connected", { sessionId: id, phone: `+${phoneNumber}`, status: "connected" });
        await this.change(row, { status: "connected", phoneNumber, connectedAt: this.now(), firstConnectedAt: row.firstConnectedAt ?? row.connectedAt ?? this.now(), lastDisconnectReason: null });
      }
      return { workspaceId: row.workspaceId, relinked };
    });
    if (!connected) return;
    await this.markLink(id, this.now());
    // a session that stayed connected through a restart or a move: its link is live again (dashboard only)
    if (connected.relinked) await this.deps.db.tx(() => this.deps.bus.publish(connected.workspaceId, "session_status", { sessionId: id, status: "connected", phoneNumber, reason: null, live: true }));
    this.waiters.settle(id, { kind: "connected" });
  }

  /** Records on the session's lease whether its link is open here now (the routes' `live`). */
  private async markLink(id: string, linkedAt: number | null): Promise<void> {
    const fence = this.deps.leases.fence(id);
    if (!fence) return;
    await markLinked(this.deps.db, id, fence, linkedAt).catch((err) => this.deps.log.warn("recording a session's link state failed", { sessionId: id, err }));
  }

  private async onDisconnected(id: string, reason: string, willReconnect: boolean, detail?: string): Promise<void> {
    if (willReconnect) {
      await this.markLink(id, null);
      await this.deps.db.tx(async () => {
        if (this.stopping || !this.active.has(id)) return;
        const row = await sessionForNetworkEvent(this.deps.db, id);
        // a drop of a live link is news (docs/sessions.md: connection_lost); retries while linking are not
        if (row?.status === "connected") await this.change(row, { status: "disconnected", lastDisconnectReason: reason });
      });
      return;
    }
    if (this.stopping || !this.active.has(id)) return;
    if (!(await sessionForNetworkEvent(this.deps.db, id))) return;
    await this.endSession(id, reason, detail);
  }

  /** The driver gave up (or never started): the session is disconnected with a reason. */
  private async endSession(id: string, reason: string, detail?: string): Promise<void> {
    this.active.delete(id);
    this.qrs.delete(id);
    await this.deps.leases.release(id).catch((err) => this.deps.log.warn("freeing a session lease failed", { sessionId: id, err }));
    await this.deps.db.tx(async () => {
      const row = await sessionForNetworkEvent(this.deps.db, id);
      if (!row) return;
      const patch: SessionPatch = { status: "disconnected", lastDisconnectReason: reason };
      if (UNLINKING.has(reason)) Object.assign(patch, { credentials: null, phoneNumber: null });
      await this.change(row, patch);
    });
    this.waiters.settle(id, { kind: "failed", reason, detail });
  }

  // ---- helpers ----

  /**
   * Writes a change and, when the status (or the reason of a disconnect) changed, publishes
   * session_status; entering `disconnected` also publishes session_disconnected. A retry that
   * gives up on an already disconnected session says nothing new. Runs inside `db.tx`, on a row
   * read in that transaction.
   */
  private async change(row: SessionRow, patch: SessionPatch, announce = true): Promise<void> {
    await updateSession(this.deps.db, row.workspaceId, row.id, { ...patch, updatedAt: this.now() });
    // the link's keys go with its credentials
    if (patch.credentials === null) await wipeSessionKeys(this.deps, row.id);
    const next = { ...row, ...patch };
    const news = next.status !== row.status || (next.status === "disconnected" && next.lastDisconnectReason !== row.lastDisconnectReason);
    Object.assign(row, next);
    if (!announce || patch.status === undefined || !news) return;
    const reason = next.status === "disconnected" ? next.lastDisconnectReason : null;
    if (next.status === "disconnected") await this.deps.bus.publish(row.workspaceId, "session_disconnected", { sessionId: row.id, reason });
    await this.deps.bus.publish(row.workspaceId, "session_status", { sessionId: row.id, status: next.status, phoneNumber: next.phoneNumber, reason });
  }

  private async require(workspaceId: string, id: string): Promise<SessionRow> {
    const row = this.deleting.has(id) ? undefined : await getSession(this.deps.db, workspaceId, id);
    if (!row || this.deleting.has(id)) throw errors.notFound("Session");
    return row;
  }

  /** The local side of an unlink (inside `db.tx`): disconnected by the user, link wiped. */
  private async unlink(row: SessionRow): Promise<void> {
    this.active.delete(row.id);
    this.qrs.delete(row.id);
    await this.change(row, { status: "disconnected", credentials: null, phoneNumber: null, lastDisconnectReason: "user_request" });
    this.waiters.settle(row.id, { kind: "failed", reason: "user_request" });
  }

  /** The network side of an unlink. */
  private async logout(id: string, takeLease = true): Promise<void> {
    // taken from whichever node held it: that node closes its link at its next heartbeat
    if (takeLease) await this.deps.leases.acquire(id, true).catch((err) => this.deps.log.warn("taking a session lease failed", { sessionId: id, err }));
    try {
      await this.deps.network.disconnect(id, { logout: true });
    } catch (err) {
      // the local unlink stands: the credentials are gone whatever the network said
      this.deps.log.warn("network logout failed", { sessionId: id, err });
    }
    await this.deps.leases.release(id).catch((err) => this.deps.log.warn("freeing a session lease failed", { sessionId: id, err }));
  }

  /**
   * The stored link and where the driver keeps it: keys are written while the session is
   * live (not unlinked or being deleted), so a socket's late writes cannot revive a wiped link.
   */
  private async connectOptions(row: SessionRow): Promise<ConnectOptions> {
    const id = row.id;
    const fence = this.deps.leases.fence(id);
    return {
      credentials: await this.credentialsOf(row),
      store: sessionCredentialStore(this.deps, id, () => this.active.has(id) && !this.deleting.has(id), fence && { fence, fenced: () => void this.fenced(id) }),
      lookupSent: (networkMessageId) => recentOutbound(this.deps, row.workspaceId, id, networkMessageId),
      groups: row.groups,
    };
  }

  private async credentialsOf(row: SessionRow): Promise<string | null> {
    if (!row.credentials) return null;
    try {
      return decryptCredentials(this.deps.secrets.credentialKey, row.id, row.credentials);
    } catch (err) {
      // a changed key or a damaged value: the link cannot be used, linking starts over
      this.deps.log.warn("stored credentials do not decrypt; linking anew", { sessionId: row.id, err });
      await this.deps.db.tx(() => this.change(row, { credentials: null }, false));
      return null;
    }
  }

  /** A write under this node's lease was refused: another node holds the session now, so the link closes. */
  private async fenced(id: string): Promise<void> {
    this.deps.log.warn("a write under a lease another node has taken was refused; closing the link", { sessionId: id });
    await this.deps.leases.lost(id, "lease taken by another node");
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }
}
