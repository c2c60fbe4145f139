import { DisconnectReason as WA, downloadMediaMessage, generateWAMessageContent, makeCacheableSignalKeyStore, makeWASocket, type WAMessage, type WASocket, type WAVersion } from "baileys";
import type { Logger } from "../../log.ts";
import { NetworkError, type ConnectOptions, type DisconnectReason, type CredentialStore, type DriverListener, type GroupInfo, type MessageType, type NetworkDriver, type NumberCheck, type OutboundMessage } from "../driver.ts";
import { GroupCache, groupInfoOf } from "./groups.ts";
import { DriverEmitter } from "../emitter.ts";
import { loadAuthState, MemoryCredentialStore, type StoredAuthState } from "./auth-state.ts";
import { LoopGuard, ReconnectPolicy, type BackoffOptions } from "./backoff.ts";
import { baileysLogger } from "./logger.ts";
import { outboundContent, recipientJid, sendOptions } from "./media.ts";
import { SentLog } from "./sent-log.ts";
import { KeyedSerializer } from "./chat-queue.ts";
import { TtlCache } from "./retry-cache.ts";
import { watchSocket } from "./watchdog.ts";
import { InboundHandler } from "./inbound.ts";
import { historyFilter, type HistoryOptions } from "./history.ts";
import { ignoredChat, lidPairOf, phoneOfJid, translateConnectionUpdate, upgradeRefusal, translateRejections, translateStatusUpdates, translateUserReceipts } from "./translate.ts";

export interface BaileysOptions {
  log: Logger;
  /** Parley's log level: baileys' own logger follows it */
  logLevel?: string;
  /** temporary files of inbound media downloads go under `<dataDir>/media/.incoming` */
  dataDir?: string;
  /** inbound media caps by type (docs/messages.md); a bigger file is not downloaded */
  mediaCaps?: Partial<Record<MessageType, number>>;
  /** the network's WebSocket (tests point it at a closed loopback port) */
  waWebSocketUrl?: string;
  connectTimeoutMs?: number;
  backoff?: Partial<BackoffOptions>;
  /**
   * WhatsApp Web version to announce (undefined: baileys' bundled one); `fresh`: the network
   * refused the last one (405), look it up again without a cache
   */
  version?: (fresh?: boolean) => Promise<WAVersion | undefined>;
  /** a socket with no frame for this long is closed and reconnected (0: off) */
  watchdogMs?: number;
  /** how much of the phone's history a new link downloads (default: only the small parts) */
  history?: HistoryOptions;
  /** 500 (bad session) closes in a row, without a stable connection between them, before the session ends `bad_session` */
  badSessionMax?: number;
  /** 440 (another client took the link): reconnects at most `max` times within `windowMs`, then ends `replaced` */
  replacedGuard?: { max: number; windowMs: number };
  /** shutdown waits this long for inbound messages already taken from the network to be handed over */
  drainMs?: number;
  random?: () => number;
  /** builds the socket (tests hand in a scripted one) */
  makeSocket?: (config: Parameters<typeof makeWASocket>[0]) => WASocket;
}

interface Conn {
  sessionId: string;
  auth: StoredAuthState;
  sock: WASocket | null;
  policy: ReconnectPolicy;
  replaced: LoopGuard;
  retryTimer?: ReturnType<typeof setTimeout>;
  /** stops the socket's watchdog */
  unwatch?: () => void;
  qrCount: number;
  /** planned restarts (after pairing) without an open in between: a loop of them backs off */
  restarts: number;
  open: boolean;
  /** opened at least once: a linked, working session (its reconnects never give up) */
  everOpened: boolean;
  /** after a 405: the next socket asks for a fresh version; set until the socket opens, so a second 405 ends the session */
  versionRetried: boolean;
  freshVersion: boolean;
  /** LIDs whose phone number was announced (`identity`), so each is announced once */
  identified: Map<string, string>;
  /** baileys' shouldSyncHistoryMessage, with the link's download budget */
  history: ReturnType<typeof historyFilter>;
  /** 500 (bad session) closes since the last stable connection */
  badSessions: number;
  /** when the current socket opened (a stable connection resets `badSessions`) */
  openedAt: number | null;
  /** ids Parley sent (in flight or recent) with their content: echoes are skipped, retry requests answered */
  sent: SentLog;
  /** baileys' count of retry requests per message; outlives the socket */
  retryCounts: TtlCache;
  keys: ReturnType<typeof makeCacheableSignalKeyStore>;
  /** the session's `groups` setting: group chats are decrypted and handed over only while on */
  groups: boolean;
  /** metadata of the session's groups (baileys' cachedGroupMetadata) */
  groupCache: GroupCache;
}

const FIRST_QR_MS = 60_000; // baileys: the first QR lives 60 s, the next ones 20 s
const NEXT_QR_MS = 20_000;

/** The real messaging network, through baileys (WhatsApp Web multi-device). */
export class BaileysDriver implements NetworkDriver {
  readonly name = "baileys" as const;
  private emitter = new DriverEmitter();
  private conns = new Map<string, Conn>();
  /** inbound messages of one chat are handed over in arrival order (media downloads take time) */
  private chats = new KeyedSerializer();
  private log: Logger;
  private inbound: InboundHandler;

  constructor(private opts: BaileysOptions) {
    this.log = opts.log;
    this.inbound = new InboundHandler({ log: opts.log, logLevel: opts.logLevel, dataDir: opts.dataDir, mediaCaps: opts.mediaCaps, emitter: this.emitter });
  }

  onEvent(listener: DriverListener): () => void {
    return this.emitter.on(listener);
  }

  async connect(sessionId: string, opts: ConnectOptions): Promise<void> {
    const existing = this.conns.get(sessionId);
    if (existing) {
      if (opts.groups !== undefined) existing.groups = opts.groups;
      if (existing.sock) return; // connecting or open already
      // waiting for a retry: the user asked, so try now with a fresh count
      clearTimeout(existing.retryTimer);
      existing.policy.reset();
      await this.startSocket(existing);
      return;
    }
    const store: CredentialStore = opts.store ?? new MemoryCredentialStore();
    // a new link starts from nothing: keys left by an abandoned pairing belong to another identity
    if (!opts.credentials) await store.clearKeys();
    let auth: StoredAuthState;
    try {
      auth = await loadAuthState(opts.credentials, store);
    } catch (err) {
      throw new NetworkError(`stored credentials are unreadable: ${(err as Error).message}`, false, "bad_credentials");
    }
    if (this.conns.has(sessionId)) return; // another connect got there while the link was read
    const guard = this.opts.replacedGuard ?? { max: 3, windowMs: 10 * 60_000 };
    const conn: Conn = {
      sessionId,
      auth,
      sock: null,
      policy: new ReconnectPolicy(this.opts.backoff, this.opts.random),
      replaced: new LoopGuard(guard.max, guard.windowMs),
      qrCount: 0,
      restarts: 0,
      open: false,
      everOpened: false,
      versionRetried: false,
      freshVersion: false,
      badSessions: 0,
      openedAt: null,
      identified: new Map(),
      history: historyFilter(this.opts.history ?? { mode: "off", maxBytes: 0 }),
      sent: new SentLog(opts.lookupSent, 500, (m) => this.rebuildMedia(sessionId, m)),
      retryCounts: new TtlCache(),
      // baileys' recommended cache in front of the rows (reads per message would hit the database)
      keys: makeCacheableSignalKeyStore(auth.state.keys, baileysLogger(this.log, this.opts.logLevel)),
      groups: opts.groups ?? false,
      groupCache: new GroupCache(),
    };
    this.conns.set(sessionId, conn);
    void this.inbound.sweep().catch((err) => this.log.warn("inbound download folder not swept", { err }));
    await this.startSocket(conn);
  }

  async requestPairingCode(sessionId: string, phoneNumber: string): Promise<string> {
    const conn = this.conns.get(sessionId);
    if (!conn?.sock || conn.auth.linked() || conn.qrCount === 0) throw new NetworkError("session is not waiting to be linked", false, "not_pending");
    try {
      return await conn.sock.requestPairingCode(phoneNumber);
    } catch (err) {
      throw new NetworkError(`pairing code refused: ${(err as Error).message}`, true, "pairing_failed");
    }
  }

  async disconnect(sessionId: string, opts: { logout: boolean }): Promise<void> {
    const conn = this.conns.get(sessionId);
    if (!conn) return;
    this.forget(conn);
    const sock = conn.sock;
    conn.sock = null;
    if (!sock) return;
    if (opts.logout && conn.open) {
      try {
        await sock.logout("unlinked from Parley");
        return;
      } catch (err) {
        this.log.warn("logout on the network failed", { sessionId, err });
      }
    }
    sock.end(undefined);
  }

  async send(sessionId: string, message: OutboundMessage): Promise<{ networkMessageId: string }> {
    const conn = this.conns.get(sessionId);
    if (!conn?.sock || !conn.open) throw new NetworkError("session is not connected", true, "not_connected");
    // known before the network echoes it back: the echo is ours, not the owner writing from the phone
    if (message.clientMessageId) conn.sent.remember(message.clientMessageId, null);
    let sent: WAMessage | undefined;
    try {
      sent = await conn.sock.sendMessage(recipientJid(message.to), outboundContent(message) as never, sendOptions(message));
    } catch (err) {
      throw new NetworkError(`the network refused the message: ${(err as Error).message}`, true, "send_failed");
    }
    const id = sent?.key.id;
    if (!id) throw new NetworkError("the network returned no message id", true, "send_failed");
    conn.sent.remember(id, sent?.message);
    return { networkMessageId: id };
  }

  /**
   * Asks the network which numbers have an account (baileys' `onWhatsApp`, one query for up to
   * 50). It answers with the accounts it found: a number among them is on the network, a number
   * missing from a full answer is not. An account the answer names under another number (some
   * countries' numbers are normalised by the network) cannot be matched to the number asked:
   * then the unmatched numbers are left out (unknown) rather than declared absent.
   */
  async checkNumbers(sessionId: string, phones: string[]): Promise<NumberCheck[]> {
    const conn = this.conns.get(sessionId);
    if (!conn?.sock || !conn.open) throw new NetworkError("session is not connected", true, "not_connected");
    if (phones.length > 50) throw new NetworkError("at most 50 numbers at once", false, "too_many");
    let found: { jid: string; exists: unknown }[] | undefined;
    try {
      found = await conn.sock.onWhatsApp(...phones.map((p) => `${p}@s.whatsapp.net`));
    } catch (err) {
      throw new NetworkError(`the network did not answer the number check: ${(err as Error).message}`, true, "check_failed");
    }
    if (!found) throw new NetworkError("the network did not answer the number check", true, "check_failed");
    const present = new Set(found.filter((f) => f.exists).map((f) => phoneOfJid(f.jid)));
    const unmatched = [...present].filter((p) => !p || !phones.includes(p)).length;
    const out: NumberCheck[] = [];
    for (const phone of phones) {
      if (present.has(phone)) out.push({ phone, onNetwork: true });
      else if (!unmatched) out.push({ phone, onNetwork: false });
    }
    return out;
  }

  /** The groups the session is in (baileys' groupFetchAllParticipating), which also fills the metadata cache. */
  async listGroups(sessionId: string): Promise<GroupInfo[]> {
    const conn = this.conns.get(sessionId);
    const sock = conn?.sock;
    if (!conn || !sock || !conn.open) throw new NetworkError("session is not connected", true, "not_connected");
    let all: Record<string, import("baileys").GroupMetadata>;
    try {
      all = await sock.groupFetchAllParticipating();
    } catch (err) {
      throw new NetworkError(`the network did not list the groups: ${(err as Error).message}`, true, "groups_failed");
    }
    const metas = Object.values(all ?? {});
    for (const meta of metas) conn.groupCache.set(meta);
    return Promise.all(metas.map((meta) => groupInfoOf(sock, meta)));
  }

  /** The session's `groups` setting: read on every message (baileys asks shouldIgnoreJid per message). */
  setGroups(sessionId: string, on: boolean): void {
    const conn = this.conns.get(sessionId);
    if (conn) conn.groups = on;
  }

  /**
   * Closes every socket first (the network stops handing over messages, so none is
   * acknowledged and then lost), then waits (bounded) for the inbound messages already taken
   * to be emitted. Keys and creds were written as they changed: nothing is left to save.
   */
  async shutdown(): Promise<void> {
    for (const conn of this.conns.values()) {
      this.stopTimers(conn);
      const sock = conn.sock;
      conn.sock = null;
      sock?.end(undefined);
    }
    this.conns.clear();
    await this.chats.drain(this.opts.drainMs ?? 10_000);
  }

  // ---- one socket's life ----

  private async startSocket(conn: Conn): Promise<void> {
    conn.qrCount = 0;
    conn.open = false;
    const fresh = conn.freshVersion;
    conn.freshVersion = false;
    const version = await this.opts.version?.(fresh).catch(() => undefined);
    if (this.conns.get(conn.sessionId) !== conn) return; // disconnected while the version was looked up
    let sock: WASocket;
    try {
      sock = (this.opts.makeSocket ?? makeWASocket)({
        auth: { creds: conn.auth.state.creds, keys: conn.keys },
        logger: baileysLogger(this.log.child({ sessionId: conn.sessionId }), this.opts.logLevel),
        ...(this.opts.waWebSocketUrl ? { waWebSocketUrl: this.opts.waWebSocketUrl } : {}),
        ...(version ? { version } : {}),
        connectTimeoutMs: this.opts.connectTimeoutMs ?? 20_000,
        markOnlineOnConnect: false,
        syncFullHistory: false,
        shouldSyncHistoryMessage: conn.history as never,
        msgRetryCounterCache: conn.retryCounts,
        shouldIgnoreJid: (jid) => ignoredChat(jid, conn.groups),
        // a group send asks this before the network: the cache spares a metadata query per message
        cachedGroupMetadata: async (jid) => conn.groupCache.get(jid),
        getMessage: async (key) => (await conn.sent.content(key.id)) as never,
      });
    } catch (err) {
      this.forget(conn);
      throw new NetworkError(`cannot open a connection: ${(err as Error).message}`, false, "socket_failed");
    }
    conn.sock = sock;
    this.watch(conn, sock);
    // baileys does not listen for an upgrade answered with an HTTP status (the edge's 503): it
    // would wait out its connect timeout and report a timeout. Close at once with the status.
    (sock.ws as unknown as { on(event: string, l: (...args: unknown[]) => void): void }).on("unexpected-response", (_req, res) => {
      if (conn.sock !== sock) return;
      const r = res as { statusCode?: number; headers?: Record<string, string | string[] | undefined> } | undefined;
      const retryAfter = r?.headers?.["retry-after"];
      sock.end(upgradeRefusal(r?.statusCode ?? 0, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) as never);
    });
    sock.ev.on("connection.update", (u) => {
      if (conn.sock !== sock) return; // an old socket's last words
      const action = translateConnectionUpdate(u, { linked: conn.auth.linked(), qrShown: conn.qrCount > 0 });
      if (action.kind === "qr") {
        const ms = conn.qrCount++ === 0 ? FIRST_QR_MS : NEXT_QR_MS;
        this.emitter.emit({ type: "qr", sessionId: conn.sessionId, qr: action.qr, expiresAt: new Date(Date.now() + ms) });
      } else if (action.kind === "open") {
        conn.open = true;
        conn.everOpened = true;
        conn.versionRetried = false;
        conn.openedAt = Date.now();
        conn.restarts = 0;
        conn.policy.opened(Date.now());
        const phone = phoneOfJid(conn.auth.state.creds.me?.id) ?? "";
        this.emitter.emit({ type: "connected", sessionId: conn.sessionId, phoneNumber: phone });
      } else if (action.kind === "close") {
        conn.sock = null;
        conn.open = false;
        conn.unwatch?.();
        conn.policy.closed(Date.now());
        if (conn.openedAt !== null && Date.now() - conn.openedAt >= conn.policy.opts.stableMs) conn.badSessions = 0;
        conn.openedAt = null;
        this.onClose(conn, action);
      }
    });
    // creds change rarely (pairing, pre-key uploads): each change is written at once (the store keeps their order)
    sock.ev.on("creds.update", () => {
      if (this.conns.get(conn.sessionId) === conn) {
        conn.auth.saveCreds().catch((err) => this.log.error("link credentials not saved", { sessionId: conn.sessionId, err }));
      }
    });
    // one person first seen by LID and later by number: what was recorded under the LID moves to the number
    sock.ev.on("lid-mapping.update", ({ lid, pn }) => this.identify(conn, lidPairOf(lid, pn)));
    sock.ev.on("groups.upsert", (metas) => {
      for (const meta of metas) conn.groupCache.set(meta);
    });
    sock.ev.on("groups.update", (changes) => conn.groupCache.update(changes));
    sock.ev.on("group-participants.update", (u) => conn.groupCache.participants(u));
    const describeGroup = async (jid: string) => {
      const meta = await conn.groupCache.fetch(sock, jid, this.log);
      return meta ? groupInfoOf(sock, meta) : undefined;
    };
    sock.ev.on("messages.upsert", ({ messages, type }) => {
      if (type !== "notify" && type !== "append") return;
      for (const m of messages) {
        // a key addressed by LID with the number beside it (or the other way round) says the same
        if (m.key.remoteJidAlt) this.identify(conn, lidPairOf(m.key.remoteJid, m.key.remoteJidAlt));
        if (m.key.fromMe && m.key.id && conn.sent.has(m.key.id)) continue; // our own send's echo
        if (m.key.remoteJid && ignoredChat(m.key.remoteJid, conn.groups)) continue; // a group decrypted before the setting went off
        const onError = (err: unknown) => this.log.error("inbound message not handled", { sessionId: conn.sessionId, err });
        void this.chats.run(`${conn.sessionId}:${m.key.remoteJid ?? ""}`, () => this.inbound.handle(conn.sessionId, sock, m, describeGroup), onError);
      }
    });
    sock.ev.on("messages.update", (updates) => {
      for (const r of translateStatusUpdates(updates, new Date())) this.emitter.emit({ type: "receipt", sessionId: conn.sessionId, ...r });
      for (const r of translateRejections(updates)) {
        this.log.warn("the network rejected a message", { sessionId: conn.sessionId, ...r });
        this.emitter.emit({ type: "rejected", sessionId: conn.sessionId, ...r });
      }
    });
    sock.ev.on("message-receipt.update", (updates) => {
      for (const r of translateUserReceipts(updates)) this.emitter.emit({ type: "receipt", sessionId: conn.sessionId, ...r });
    });
  }

  /** Announces a LID's phone number once per session and process (the merge behind it is idempotent, but not free). */
  private identify(conn: Conn, pair: { lid: string; phone: string } | undefined): void {
    if (!pair || conn.identified.get(pair.lid) === pair.phone) return;
    conn.identified.set(pair.lid, pair.phone);
    if (conn.identified.size > 10_000) conn.identified.delete(conn.identified.keys().next().value!);
    // in the chat's order: a message of the chat taken before the mapping is stored first, then moved
    const chat = `${conn.sessionId}:${pair.lid}`;
    const emit = async () => this.emitter.emit({ type: "identity", sessionId: conn.sessionId, ...pair });
    void this.chats.run(chat, emit, (err) => this.log.error("identity not handed over", { sessionId: conn.sessionId, err }));
  }

  /**
   * The content of a stored media message for a retry request: its file uploaded again through
   * the session's socket (fresh media keys), as a send would. Undefined when not connected.
   */
  private async rebuildMedia(sessionId: string, m: OutboundMessage): Promise<unknown> {
    const sock = this.conns.get(sessionId)?.sock;
    if (!sock) return undefined;
    try {
      return await generateWAMessageContent(outboundContent(m) as never, { upload: sock.waUploadToServer, logger: baileysLogger(this.log, this.opts.logLevel) });
    } catch (err) {
      this.log.warn("media of a message asked for again could not be uploaded again", { sessionId, err });
      return undefined;
    }
  }

  /** The watchdog: an open socket that hears nothing for `watchdogMs` is closed as lost (408: the close path backs off and reconnects). */
  private watch(conn: Conn, sock: WASocket): void {
    conn.unwatch?.();
    const limit = this.opts.watchdogMs ?? 0;
    if (!limit) return;
    conn.unwatch = watchSocket(sock, limit, () => conn.sock === sock && conn.open, (silentMs) => {
      this.log.warn("socket silent; reconnecting", { sessionId: conn.sessionId, silentMs });
      sock.end(Object.assign(new Error(`no frames for ${silentMs} ms`), { output: { statusCode: 408 } }) as never);
    });
  }

  private onClose(conn: Conn, action: Extract<ReturnType<typeof translateConnectionUpdate>, { kind: "close" }>): void {
    const { sessionId } = conn;
    if (this.conns.get(sessionId) !== conn) return; // disconnected or shut down on purpose
    if (action.reconnect === "now" && conn.restarts++ < 3) {
      void this.startSocket(conn).catch((err) => this.fail(conn, err));
      return;
    }
    if (action.reconnect === "replaced" && !conn.replaced.allow(Date.now())) {
      const { max, windowMs } = conn.replaced;
      return this.end(conn, "replaced", `${action.detail}; replaced ${max} times within ${Math.round(windowMs / 1000)} s: another client keeps taking the link`);
    }
    if (action.reason === "version_rejected" && !conn.versionRetried && this.opts.version) {
      // the network moved on: fetch its current version and try once more with it
      conn.versionRetried = true;
      conn.freshVersion = true;
      this.log.warn("the network refused the WhatsApp Web version; fetching the current one and retrying once", { sessionId });
      void this.startSocket(conn).catch((err) => this.fail(conn, err));
      return;
    }
    if (action.statusCode === WA.badSession && action.reason === "connection_lost" && ++conn.badSessions >= (this.opts.badSessionMax ?? 5)) {
      // the network keeps refusing this link: retrying forever cannot help, a new pairing can
      this.emitter.emit({ type: "credentials", sessionId, credentials: null });
      return this.end(conn, "bad_session", `${action.detail}; the network refused the stored link ${conn.badSessions} times in a row (bad session): pair the session again (connect shows a new QR code)`);
    }
    if (action.reconnect === "never") {
      if (action.wipe) this.emitter.emit({ type: "credentials", sessionId, credentials: null });
      return this.end(conn, action.reason, action.detail);
    }
    // a drop, or a takeover under the loop guard: back off, then try again with the same link
    const linking = !conn.everOpened && !conn.auth.linked();
    const policyDelay = conn.policy.next(linking);
    // an edge that says when to come back (Retry-After) is not asked sooner, within reason
    const asked = Math.min(action.retryAfterMs ?? 0, 10 * 60_000);
    const delay = policyDelay === null ? null : Math.max(policyDelay, asked);
    const reason = action.reconnect === "replaced" ? "connection_lost" : action.reason;
    if (delay === null) return this.end(conn, reason, `${action.detail}; gave up after ${conn.policy.attempt} retries`);
    this.log.info("connection dropped; retrying", { sessionId, attempt: conn.policy.attempt, retryInMs: delay, detail: action.detail });
    this.emitter.emit({ type: "disconnected", sessionId, reason, willReconnect: true, detail: action.detail, retryInMs: delay });
    conn.retryTimer = setTimeout(() => {
      conn.retryTimer = undefined;
      if (this.conns.get(sessionId) === conn && !conn.sock) void this.startSocket(conn).catch((err) => this.fail(conn, err));
    }, delay);
  }

  private end(conn: Conn, reason: DisconnectReason, detail: string): void {
    this.forget(conn);
    this.emitter.emit({ type: "disconnected", sessionId: conn.sessionId, reason, willReconnect: false, detail });
  }

  private fail(conn: Conn, err: unknown): void {
    this.forget(conn);
    this.emitter.emit({ type: "disconnected", sessionId: conn.sessionId, reason: "error", willReconnect: false, detail: (err as Error).message });
  }

  private forget(conn: Conn): void {
    this.stopTimers(conn);
    if (this.conns.get(conn.sessionId) === conn) this.conns.delete(conn.sessionId);
  }

  private stopTimers(conn: Conn): void {
    clearTimeout(conn.retryTimer);
    conn.unwatch?.();
    conn.retryTimer = conn.unwatch = undefined;
  }
}
