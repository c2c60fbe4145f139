import { downloadMediaMessage, makeWASocket, type WAMessage, type WASocket } from "baileys";
import type { Logger } from "../../log.ts";
import { NetworkError, type DriverListener, type InboundMessage, type NetworkDriver, type OutboundMessage } from "../driver.ts";
import { DriverEmitter } from "../emitter.ts";
import { memoryAuthState, type MemoryAuthState } from "./auth-state.ts";
import { ReconnectPolicy, type BackoffOptions } from "./backoff.ts";
import { baileysLogger } from "./logger.ts";
import { outboundContent, sendOptions } from "./media.ts";
import { KeyedSerializer } from "./chat-queue.ts";
import { phoneOfJid, shouldHandleUpsert, translateConnectionUpdate, translateInbound, translateStatusUpdates, translateUserReceipts } from "./translate.ts";

export interface BaileysOptions {
  log: Logger;
  /** the network's WebSocket (tests point it at a closed loopback port) */
  waWebSocketUrl?: string;
  connectTimeoutMs?: number;
  backoff?: Partial<BackoffOptions>;
  /** credentials are saved at most this often while keys change */
  credentialsDebounceMs?: number;
  random?: () => number;
}

interface Conn {
  sessionId: string;
  auth: MemoryAuthState;
  sock: WASocket | null;
  policy: ReconnectPolicy;
  retryTimer?: ReturnType<typeof setTimeout>;
  credsTimer?: ReturnType<typeof setTimeout>;
  qrCount: number;
  /** planned restarts (after pairing) without an open in between: a loop of them backs off */
  restarts: number;
  open: boolean;
  /** opened at least once: a linked, working session (its reconnects never give up) */
  everOpened: boolean;
  /** keys changed since credentials were last handed over */
  dirty: boolean;
  /** outgoing messages kept for the network's retry requests (baileys' getMessage) */
  sent: Map<string, unknown>;
}

const FIRST_QR_MS = 60_000; // baileys: the first QR lives 60 s, the next ones 20 s
const NEXT_QR_MS = 20_000;
const SENT_CACHE = 500;

/** The real messaging network, through baileys (WhatsApp Web multi-device). */
export class BaileysDriver implements NetworkDriver {
  readonly name = "baileys" as const;
  private emitter = new DriverEmitter();
  private conns = new Map<string, Conn>();
  /** inbound messages of one chat are handed over in arrival order (media downloads take time) */
  private chats = new KeyedSerializer();
  private log: Logger;

  constructor(private opts: BaileysOptions) {
    this.log = opts.log;
  }

  onEvent(listener: DriverListener): () => void {
    return this.emitter.on(listener);
  }

  async connect(sessionId: string, opts: { credentials: string | null }): Promise<void> {
    const existing = this.conns.get(sessionId);
    if (existing) {
      if (existing.sock) return; // connecting or open already
      // waiting for a retry: the user asked, so try now with a fresh count
      clearTimeout(existing.retryTimer);
      existing.policy.reset();
      this.startSocket(existing);
      return;
    }
    let auth: MemoryAuthState;
    const conn = { sessionId } as Conn;
    try {
      auth = memoryAuthState(opts.credentials, () => this.credsChanged(conn));
    } catch (err) {
      throw new NetworkError(`stored credentials are unreadable: ${(err as Error).message}`, false, "bad_credentials");
    }
    Object.assign(conn, {
      auth,
      sock: null,
      policy: new ReconnectPolicy(this.opts.backoff, this.opts.random),
      qrCount: 0,
      restarts: 0,
      open: false,
      everOpened: false,
      dirty: false,
      sent: new Map(),
    } satisfies Omit<Conn, "sessionId">);
    this.conns.set(sessionId, conn);
    this.startSocket(conn);
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
    this.conns.delete(sessionId);
    this.stopTimers(conn);
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
    let sent: WAMessage | undefined;
    try {
      sent = await conn.sock.sendMessage(`${message.to}@s.whatsapp.net`, outboundContent(message) as never, sendOptions(message));
    } catch (err) {
      throw new NetworkError(`the network refused the message: ${(err as Error).message}`, true, "send_failed");
    }
    const id = sent?.key.id;
    if (!id) throw new NetworkError("the network returned no message id", true, "send_failed");
    conn.sent.set(id, sent?.message);
    if (conn.sent.size > SENT_CACHE) conn.sent.delete(conn.sent.keys().next().value!);
    return { networkMessageId: id };
  }

  async shutdown(): Promise<void> {
    for (const conn of this.conns.values()) {
      this.stopTimers(conn);
      // the last key changes must reach the store before the process ends
      this.flushCredentials(conn);
      const sock = conn.sock;
      conn.sock = null;
      sock?.end(undefined);
    }
    this.conns.clear();
  }

  // ---- one socket's life ----

  private startSocket(conn: Conn): void {
    conn.qrCount = 0;
    conn.open = false;
    let sock: WASocket;
    try {
      sock = makeWASocket({
        auth: conn.auth.state,
        logger: baileysLogger(this.log.child({ sessionId: conn.sessionId })),
        ...(this.opts.waWebSocketUrl ? { waWebSocketUrl: this.opts.waWebSocketUrl } : {}),
        connectTimeoutMs: this.opts.connectTimeoutMs ?? 20_000,
        markOnlineOnConnect: false,
        syncFullHistory: false,
        getMessage: async (key) => (key.id ? (conn.sent.get(key.id) as never) : undefined),
      });
    } catch (err) {
      this.conns.delete(conn.sessionId);
      throw new NetworkError(`cannot open a connection: ${(err as Error).message}`, false, "socket_failed");
    }
    conn.sock = sock;
    sock.ev.on("connection.update", (u) => {
      if (conn.sock !== sock) return; // an old socket's last words
      const action = translateConnectionUpdate(u, { linked: conn.auth.linked(), qrShown: conn.qrCount > 0 });
      if (action.kind === "qr") {
        const ms = conn.qrCount++ === 0 ? FIRST_QR_MS : NEXT_QR_MS;
        this.emitter.emit({ type: "qr", sessionId: conn.sessionId, qr: action.qr, expiresAt: new Date(Date.now() + ms) });
      } else if (action.kind === "open") {
        conn.open = true;
        conn.everOpened = true;
        conn.restarts = 0;
        conn.policy.opened(Date.now());
        this.flushCredentials(conn);
        const phone = phoneOfJid(conn.auth.state.creds.me?.id) ?? "";
        this.emitter.emit({ type: "connected", sessionId: conn.sessionId, phoneNumber: phone });
      } else if (action.kind === "close") {
        conn.sock = null;
        conn.open = false;
        conn.policy.closed(Date.now());
        this.onClose(conn, action);
      }
    });
    sock.ev.on("creds.update", () => this.credsChanged(conn));
    sock.ev.on("messages.upsert", ({ messages, type }) => {
      for (const m of messages) {
        if (!shouldHandleUpsert(type, m)) continue;
        const onError = (err: unknown) => this.log.error("inbound message not handled", { sessionId: conn.sessionId, err });
        void this.chats.run(`${conn.sessionId}:${m.key.remoteJid ?? ""}`, () => this.inbound(conn, sock, m), onError);
      }
    });
    sock.ev.on("messages.update", (updates) => {
      for (const r of translateStatusUpdates(updates, new Date())) this.emitter.emit({ type: "receipt", sessionId: conn.sessionId, ...r });
    });
    sock.ev.on("message-receipt.update", (updates) => {
      for (const r of translateUserReceipts(updates)) this.emitter.emit({ type: "receipt", sessionId: conn.sessionId, ...r });
    });
  }

  private onClose(conn: Conn, action: Extract<ReturnType<typeof translateConnectionUpdate>, { kind: "close" }>): void {
    const { sessionId } = conn;
    if (this.conns.get(sessionId) !== conn) return; // disconnected or shut down on purpose
    if (action.reconnect === "now" && conn.restarts++ < 3) {
      this.flushCredentials(conn);
      this.startSocket(conn);
      return;
    }
    if (action.reconnect === "never") {
      if (!action.wipe) this.flushCredentials(conn);
      this.forget(conn);
      if (action.wipe) this.emitter.emit({ type: "credentials", sessionId, credentials: null });
      this.emitter.emit({ type: "disconnected", sessionId, reason: action.reason, willReconnect: false, detail: action.detail });
      return;
    }
    const linking = !conn.everOpened && !conn.auth.linked();
    const delay = conn.policy.next(linking);
    this.flushCredentials(conn);
    if (delay === null) {
      this.forget(conn);
      const detail = `${action.detail}; gave up after ${conn.policy.attempt} retries`;
      this.emitter.emit({ type: "disconnected", sessionId, reason: action.reason, willReconnect: false, detail });
      return;
    }
    this.log.info("connection dropped; retrying", { sessionId, attempt: conn.policy.attempt, retryInMs: delay, detail: action.detail });
    this.emitter.emit({ type: "disconnected", sessionId, reason: action.reason, willReconnect: true, detail: action.detail, retryInMs: delay });
    conn.retryTimer = setTimeout(() => {
      conn.retryTimer = undefined;
      if (this.conns.get(sessionId) === conn && !conn.sock) {
        try {
          this.startSocket(conn);
        } catch (err) {
          this.emitter.emit({ type: "disconnected", sessionId, reason: "error", willReconnect: false, detail: (err as Error).message });
        }
      }
    }, delay);
  }

  private async inbound(conn: Conn, sock: WASocket, m: WAMessage): Promise<void> {
    const t = translateInbound(m, new Date());
    if (!t) return;
    const message: InboundMessage = { ...t.message };
    if (t.media) {
      try {
        const data = await downloadMediaMessage(m, "buffer", {}, { logger: baileysLogger(this.log), reuploadRequest: sock.updateMediaMessage });
        // the bytes travel with the event; the messaging module stores the one copy
        message.media = { data, mimeType: t.media.mimeType, filename: t.media.filename };
      } catch (err) {
        // the message still arrives; its media is missing
        this.log.warn("inbound media download failed", { sessionId: conn.sessionId, networkMessageId: t.message.networkMessageId, err });
      }
    }
    this.emitter.emit({ type: "inbound", sessionId: conn.sessionId, message });
  }

  // ---- credentials: handed to the session manager, which stores them encrypted ----

  private credsChanged(conn: Conn): void {
    conn.dirty = true;
    if (conn.credsTimer) return;
    conn.credsTimer = setTimeout(() => this.flushCredentials(conn), this.opts.credentialsDebounceMs ?? 250);
  }

  private flushCredentials(conn: Conn): void {
    clearTimeout(conn.credsTimer);
    conn.credsTimer = undefined;
    // a session disconnected on purpose has no credentials any more: nothing to save
    if (!conn.dirty || this.conns.get(conn.sessionId) !== conn) return;
    conn.dirty = false;
    this.emitter.emit({ type: "credentials", sessionId: conn.sessionId, credentials: conn.auth.serialize() });
  }

  private forget(conn: Conn): void {
    this.stopTimers(conn);
    this.conns.delete(conn.sessionId);
  }

  private stopTimers(conn: Conn): void {
    clearTimeout(conn.retryTimer);
    clearTimeout(conn.credsTimer);
    conn.retryTimer = conn.credsTimer = undefined;
  }
}
