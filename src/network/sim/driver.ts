import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from "node:fs";
import { BoundedMap, SentRing } from "./bounded.ts";
import { LineLog } from "./line-log.ts";
import { sentLogHas } from "./sent-search.ts";
import { SimGroups } from "./groups.ts";
import { join } from "node:path";
import { DriverEmitter } from "../emitter.ts";
import {
  NetworkError,
  type DisconnectReason,
  type DriverListener,
  type GroupInfo,
  type InboundMessage,
  type NetworkDriver,
  type NumberCheck,
  type OutboundMessage,
} from "../driver.ts";

export interface SimOptions {
  /** How often a pending QR is replaced (the real network: about 20 s). */
  qrRotateMs: number;
  /** QRs shown before linking gives up with `pairing_timeout`. */
  qrMaxRotations: number;
  /** Deliver `delivered` then `read` receipts by itself after each send. */
  autoReceipts: boolean;
  receiptDelayMs: number;
  /** Latency of network-side steps (connect, reconnect). */
  latencyMs: number;
  /**
   * When set, the network's state survives a restart: linked devices in
   * `<dataDir>/sim-network.json`, and what the network accepted in `<dataDir>/sim-sent.jsonl`
   * (append-only, written asynchronously in whole lines), so a resend with a known
   * `clientMessageId` is recognised instead of delivered twice.
   */
  dataDir?: string;
  /** Sent messages kept in memory (`sent`, the oldest dropped first); the log on disk has them all. */
  sentRingSize: number;
  /** Media bytes the kept sent messages may hold together. */
  sentRingMediaBytes: number;
  /** The `clientMessageId`s remembered to recognise a resend (the newest; also read back from the log's tail at start). */
  resendWindow: number;
}

const DEFAULTS: SimOptions = {
  qrRotateMs: 20_000,
  qrMaxRotations: 6,
  autoReceipts: false,
  receiptDelayMs: 50,
  latencyMs: 5,
  sentRingSize: 5_000,
  sentRingMediaBytes: 32 * 1024 * 1024,
  resendWindow: 10_000,
};

/** Bytes of the sent log's tail read at start to remember recent `clientMessageId`s. */
const TAIL_BYTES = 4 * 1024 * 1024; // about 15,000 lines of text sends: more than the resend window

interface SimSession {
  state: "connecting" | "qr" | "connected";
  qr?: string;
  qrTimer?: ReturnType<typeof setTimeout>;
  rotations: number;
  phoneNumber?: string;
  /** the link this connection uses (known once connected) */
  credentials?: string;
  failNext: { count: number; code: string };
}

/** A sent message as the sim network saw it (tests and demos read these). */
export interface SimSent {
  sessionId: string;
  networkMessageId: string;
  message: OutboundMessage;
  at: Date;
}

/** An in-process messaging network: asynchronous, with the real network's event order. */
export class SimDriver implements NetworkDriver {
  readonly name = "sim" as const;
  readonly opts: SimOptions;
  /** the newest sent messages (a bounded ring: see `sentRingSize`; the log on disk has every one) */
  readonly sent: SentRing<SimSent>;
  /** the number checks the network answered, in order (tests count the batches; the last 1000 are kept) */
  readonly checks: { sessionId: string; phones: string[] }[] = [];
  private emitter = new DriverEmitter();
  private sessions = new Map<string, SimSession>();
  /** The network's side of linked devices: credentials -> phone number. */
  private devices = new Map<string, string>();
  private timers = new Set<ReturnType<typeof setTimeout>>();
  /** clientMessageId -> networkMessageId of the recently accepted messages */
  private byClientId: BoundedMap<string, string>;
  /** sends under way by clientMessageId: a resend racing its original gets the original's id */
  private sending = new Map<string, Promise<{ networkMessageId: string }>>();
  private sentLog: LineLog | null;
  /** numbers that are not on the network (every other number is) */
  private absent = new Set<string>();
  /** links this process removed: reading the shared file again does not bring them back */
  private unlinked = new Set<string>();
  /** bytes of the sent log read so far (other processes on the same data dir append to it too) */
  private sentLogRead = 0;
  /** the sent log, held open for reading once it exists (a send looks for others' lines with one fstat) */
  private sentLogFd: number | null = null;
  /** the group chats of the sessions (groups.ts) */
  readonly groups: SimGroups;

  constructor(opts: Partial<SimOptions> = {}) {
    this.opts = { ...DEFAULTS, ...opts };
    this.sent = new SentRing(this.opts.sentRingSize, this.opts.sentRingMediaBytes);
    this.byClientId = new BoundedMap(this.opts.resendWindow);
    this.groups = new SimGroups(this.opts.dataDir ? join(this.opts.dataDir, "sim-groups.json") : undefined);
    this.loadDevices();
    const log = this.sentLogFile();
    this.sentLog = log ? new LineLog(log) : null;
    if (log && existsSync(log)) this.loadTail(log);
  }

  /** The newest sends of the log (its last TAIL_BYTES): what a resend after a restart may repeat. */
  private loadTail(log: string): void {
    const fd = openSync(log, "r");
    let text: string;
    try {
      const size = fstatSync(fd).size;
      this.sentLogRead = size;
      const start = Math.max(0, size - TAIL_BYTES);
      const buf = Buffer.alloc(size - start);
      for (let done = 0; done < buf.length; ) {
        const n = readSync(fd, buf, done, buf.length - done, start + done);
        if (n === 0) break;
        done += n;
      }
      text = buf.toString("utf8");
      if (start > 0) text = text.slice(text.indexOf("\n") + 1); // the first line is cut
    } finally {
      closeSync(fd);
    }
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      try {
        const e = JSON.parse(line) as { sessionId: string; networkMessageId: string; clientMessageId?: string; to: string; type: OutboundMessage["type"]; text?: string; at: string };
        this.sent.add({ sessionId: e.sessionId, networkMessageId: e.networkMessageId, message: { to: e.to, type: e.type, text: e.text, clientMessageId: e.clientMessageId }, at: new Date(e.at) });
        if (e.clientMessageId) this.byClientId.set(e.clientMessageId, e.networkMessageId);
      } catch {
        // a line torn by a crash mid-write: the send it describes never returned
      }
    }
  }

  onEvent(listener: DriverListener): () => void {
    return this.emitter.on(listener);
  }

  async connect(sessionId: string, opts: { credentials: string | null }): Promise<void> {
    const existing = this.sessions.get(sessionId);
    if (existing && existing.state !== "connecting") return;
    const s: SimSession = existing ?? { state: "connecting", rotations: 0, failNext: { count: 0, code: "send_failed" } };
    this.sessions.set(sessionId, s);
    // another process on the same data dir (a node of a cluster) may have linked it: read the file again
    if (opts.credentials && !this.devices.has(opts.credentials)) this.loadDevices();
    const phone = opts.credentials ? this.devices.get(opts.credentials) : undefined;
    if (opts.credentials && !phone) {
      // like the real network: a link removed while we were away fails with a logout
      this.sessions.delete(sessionId);
      this.later(this.opts.latencyMs, () => {
        this.emitter.emit({ type: "credentials", sessionId, credentials: null });
        this.emitter.emit({ type: "disconnected", sessionId, reason: "logged_out", willReconnect: false, detail: "the device is no longer linked" });
      });
      return;
    }
    if (phone) {
      this.later(this.opts.latencyMs, () => {
        if (this.sessions.get(sessionId) !== s) return;
        s.state = "connected";
        s.phoneNumber = phone;
        s.credentials = opts.credentials!;
        this.emitter.emit({ type: "connected", sessionId, phoneNumber: phone });
      });
      return;
    }
    this.later(this.opts.latencyMs, () => this.showQr(sessionId, s));
  }

  async requestPairingCode(sessionId: string, phoneNumber: string): Promise<string> {
    const s = this.sessions.get(sessionId);
    if (!s || s.state !== "qr") throw new NetworkError("session is not waiting to be linked", false, "not_pending");
    const code = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => "ABCDEFGHJKLMNPQRSTVWXYZ23456789"[b % 30]).join("");
    s.phoneNumber = phoneNumber;
    return code;
  }

  async disconnect(sessionId: string, opts: { logout: boolean }): Promise<void> {
    const s = this.sessions.get(sessionId);
    if (!s) return;
    this.clearQr(s);
    this.sessions.delete(sessionId);
    if (opts.logout) this.unlink(s.credentials);
  }

  async send(sessionId: string, message: OutboundMessage): Promise<{ networkMessageId: string }> {
    const s = this.sessions.get(sessionId);
    await Bun.sleep(0);
    if (!s || s.state !== "connected") throw new NetworkError("session is not connected", true, "not_connected");
    if (s.failNext.count > 0) {
      s.failNext.count--;
      throw new NetworkError(`simulated failure: ${s.failNext.code}`, true, s.failNext.code);
    }
    if (this.absent.has(message.to)) throw new NetworkError("the number is not on the network", false, "not_on_network");
    // a message another process on the same data dir (a node of a cluster) sent is recognised too
    if (message.clientMessageId && this.byClientId.get(message.clientMessageId) === undefined) this.catchUpSentLog();
    if (!this.groups.canReach(sessionId, message.to)) throw new NetworkError("the session is not in this group", false, "not_in_group");
    const cid = message.clientMessageId;
    const known = cid ? this.byClientId.get(cid) : undefined;
    if (known) return { networkMessageId: known }; // a resend of an accepted message: not delivered again
    const under = cid ? this.sending.get(cid) : undefined;
    if (under) return under;
    const accepted = this.accept(sessionId, message);
    if (!cid) return accepted;
    this.sending.set(cid, accepted);
    try {
      return await accepted;
    } finally {
      this.sending.delete(cid);
    }
  }

  private async accept(sessionId: string, message: OutboundMessage): Promise<{ networkMessageId: string }> {
    const networkMessageId = "SIM" + Bun.randomUUIDv7().replace(/-/g, "").toUpperCase().slice(0, 20);
    const at = new Date();
    if (this.sentLog) {
      const { to, type, text, clientMessageId } = message;
      // whole lines only: a send the disk refused is not in the log (and failed), the next one starts clean
      await this.sentLog.append(JSON.stringify({ sessionId, networkMessageId, clientMessageId, to, type, text, mimeType: message.media?.mimeType, at }));
    }
    if (message.clientMessageId) this.byClientId.set(message.clientMessageId, networkMessageId);
    this.sent.add({ sessionId, networkMessageId, message, at });
    if (this.opts.autoReceipts) {
      this.later(this.opts.receiptDelayMs, () => this.receipt(sessionId, networkMessageId, "delivered"));
      this.later(this.opts.receiptDelayMs * 2, () => this.receipt(sessionId, networkMessageId, "read"));
    }
    return { networkMessageId };
  }

  async shutdown(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const s of this.sessions.values()) this.clearQr(s);
    this.sessions.clear();
    await this.sentLog?.flush();
    if (this.sentLogFd !== null) closeSync(this.sentLogFd);
    this.sentLogFd = null;
  }

  // ---- the network's side, driven by the sim routes, `parley sim` and tests ----

  /** The current QR of a session waiting to be linked, if any. */
  currentQr(sessionId: string): string | undefined {
    const s = this.sessions.get(sessionId);
    return s?.state === "qr" ? s.qr : undefined;
  }

  /** A phone scans the QR: the device is linked and the session connects. */
  scan(sessionId: string, phoneNumber: string): void {
    const s = this.sessions.get(sessionId);
    if (!s || s.state !== "qr") throw new NetworkError("no QR code is pending for this session", false, "not_pending");
    this.clearQr(s);
    s.state = "connected";
    s.phoneNumber = phoneNumber;
    const credentials = "simcred_" + Bun.randomUUIDv7();
    s.credentials = credentials;
    this.devices.set(credentials, phoneNumber);
    this.saveDevices();
    this.later(this.opts.latencyMs, () => {
      this.emitter.emit({ type: "credentials", sessionId, credentials });
      this.emitter.emit({ type: "connected", sessionId, phoneNumber });
    });
  }

  /** A contact sends a message to the session's number. */
  inbound(sessionId: string, message: Omit<InboundMessage, "networkMessageId" | "timestamp"> & Partial<InboundMessage>): string {
    this.requireConnected(sessionId);
    const networkMessageId = message.networkMessageId ?? "SIMIN" + Bun.randomUUIDv7().replace(/-/g, "").toUpperCase().slice(0, 18);
    const full: InboundMessage = { ...message, networkMessageId, timestamp: message.timestamp ?? new Date() };
    this.later(this.opts.latencyMs, () => this.emitter.emit({ type: "inbound", sessionId, message: full }));
    return networkMessageId;
  }

  /** The recipient's phone reports delivery or reading. */
  receipt(sessionId: string, networkMessageId: string, status: "delivered" | "read"): void {
    this.emitter.emit({ type: "receipt", sessionId, networkMessageId, status, at: new Date() });
  }

  /**
   * The network ends the connection: the user removed the device or the number was banned
   * (the link dies with its credentials), or another client took the link over (`replaced`:
   * the credentials stay valid, the session just stops).
   */
  logout(sessionId: string, reason: Extract<DisconnectReason, "logged_out" | "replaced" | "banned"> = "logged_out"): void {
    const s = this.requireConnected(sessionId);
    const unlinked = reason !== "replaced";
    if (unlinked) this.unlink(s.credentials);
    this.sessions.delete(sessionId);
    this.later(this.opts.latencyMs, () => {
      if (unlinked) this.emitter.emit({ type: "credentials", sessionId, credentials: null });
      this.emitter.emit({ type: "disconnected", sessionId, reason, willReconnect: false });
    });
  }

  /** A transient drop: the driver reconnects by itself with its stored link. */
  drop(sessionId: string, reconnectAfterMs = 50): void {
    const s = this.requireConnected(sessionId);
    s.state = "connecting";
    this.emitter.emit({ type: "disconnected", sessionId, reason: "connection_lost", willReconnect: true });
    this.later(reconnectAfterMs, () => {
      if (this.sessions.get(sessionId) !== s) return;
      s.state = "connected";
      this.emitter.emit({ type: "connected", sessionId, phoneNumber: s.phoneNumber! });
    });
  }

  /** The next `count` sends fail with `code`. */
  failNextSends(sessionId: string, count: number, code = "send_failed"): void {
    const s = this.sessions.get(sessionId);
    if (!s) throw new NetworkError("session is not active on the network", false, "not_active");
    s.failNext = { count, code };
  }

  /** Whether numbers are on the sim network: all are but those marked absent. */
  async checkNumbers(sessionId: string, phones: string[]): Promise<NumberCheck[]> {
    await Bun.sleep(0);
    this.requireConnected(sessionId);
    this.checks.push({ sessionId, phones: [...phones] });
    if (this.checks.length > 1000) this.checks.shift();
    return phones.map((phone) => ({ phone, onNetwork: !this.absent.has(phone) }));
  }

  /** The groups the session is in. */
  async listGroups(sessionId: string): Promise<GroupInfo[]> {
    await Bun.sleep(0);
    this.requireConnected(sessionId);
    return this.groups.list(sessionId);
  }

  /** Numbers leave the sim network (kept across restarts with the data dir). */
  markAbsent(phones: string[]): void {
    for (const p of phones) this.absent.add(p);
    this.saveDevices();
  }

  /** The number a stored link (credentials) belongs to, if the network still knows it. */
  phoneOf(credentials: string): string | undefined {
    return this.devices.get(credentials);
  }

  /** The network's state of a session (sim routes check it before acting). */
  stateOf(sessionId: string): "connecting" | "qr" | "connected" | undefined {
    return this.sessions.get(sessionId)?.state;
  }

  /**
   * Whether the sim network accepted a send with this id (receipts refer to it): the kept sends,
   * then the log on disk (read in chunks, never whole into memory).
   */
  async hasSent(sessionId: string, networkMessageId: string): Promise<boolean> {
    if (this.sent.some((m) => m.sessionId === sessionId && m.networkMessageId === networkMessageId)) return true;
    const log = this.sentLogFile();
    if (!log || !existsSync(log)) return false;
    await this.sentLog?.flush();
    return sentLogHas(log, sessionId, networkMessageId);
  }

  private unlink(credentials: string | undefined): void {
    if (credentials && this.devices.delete(credentials)) {
      this.unlinked.add(credentials);
      this.saveDevices();
    }
  }

  private devicesFile(): string | null {
    return this.opts.dataDir ? join(this.opts.dataDir, "sim-network.json") : null;
  }

  private loadDevices(): void {
    const file = this.devicesFile();
    if (!file || !existsSync(file)) return;
    const stored = JSON.parse(readFileSync(file, "utf8")) as { devices?: Record<string, string>; absent?: string[] };
    for (const [cred, phone] of Object.entries(stored.devices ?? {})) if (!this.unlinked.has(cred)) this.devices.set(cred, phone);
    for (const phone of stored.absent ?? []) this.absent.add(phone);
  }

  private saveDevices(): void {
    const file = this.devicesFile();
    if (!file) return;
    mkdirSync(this.opts.dataDir!, { recursive: true, mode: 0o700 });
    // what other processes on the same data dir linked meanwhile is kept
    this.loadDevices();
    // write-then-rename: a crash never leaves half a file behind
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ devices: Object.fromEntries(this.devices), absent: [...this.absent] }, null, 2) + "\n", { mode: 0o600 });
    renameSync(tmp, file);
  }

  /** Reads the sent log's lines appended since the last look: their client ids are known sends. */
  private catchUpSentLog(): void {
    if (this.sentLogFd === null) {
      const log = this.sentLogFile();
      if (!log || !existsSync(log)) return;
      this.sentLogFd = openSync(log, "r");
    }
    const fd = this.sentLogFd;
    const size = fstatSync(fd).size;
    if (size <= this.sentLogRead) return;
    const buf = Buffer.alloc(size - this.sentLogRead);
    const got = readSync(fd, buf, 0, buf.length, this.sentLogRead);
    const end = buf.subarray(0, got).lastIndexOf(0x0a) + 1;
    for (const line of buf.subarray(0, end).toString("utf8").split("\n")) {
      try {
        const e = JSON.parse(line) as { networkMessageId: string; clientMessageId?: string };
        if (e.clientMessageId) this.byClientId.set(e.clientMessageId, e.networkMessageId);
      } catch {
        // an empty or torn line
      }
    }
    this.sentLogRead += end;
  }

  private sentLogFile(): string | null {
    return this.opts.dataDir ? join(this.opts.dataDir, "sim-sent.jsonl") : null;
  }

  private requireConnected(sessionId: string): SimSession {
    const s = this.sessions.get(sessionId);
    if (!s || s.state !== "connected") throw new NetworkError("session is not connected", false, "not_connected");
    return s;
  }

  private showQr(sessionId: string, s: SimSession): void {
    if (this.sessions.get(sessionId) !== s || s.state === "connected") return;
    if (s.rotations >= this.opts.qrMaxRotations) {
      this.sessions.delete(sessionId);
      this.emitter.emit({ type: "disconnected", sessionId, reason: "pairing_timeout", willReconnect: false });
      return;
    }
    s.state = "qr";
    s.rotations++;
    s.qr = `2@${Bun.randomUUIDv7().replace(/-/g, "")},${btoa(sessionId).slice(0, 24)},${s.rotations}`;
    const expiresAt = new Date(Date.now() + this.opts.qrRotateMs);
    this.emitter.emit({ type: "qr", sessionId, qr: s.qr, expiresAt });
    s.qrTimer = this.later(this.opts.qrRotateMs, () => this.showQr(sessionId, s));
  }

  private clearQr(s: SimSession): void {
    if (s.qrTimer) {
      clearTimeout(s.qrTimer);
      this.timers.delete(s.qrTimer);
    }
    s.qrTimer = undefined;
    s.qr = undefined;
  }

  private later(ms: number, fn: () => void): ReturnType<typeof setTimeout> {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
    return t;
  }
}
