import { EventEmitter } from "node:events";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Boom } from "@hapi/boom";
import { initAuthCreds, type GroupMetadata, type WAMessage } from "baileys";
import { ManualClock } from "../../../src/clock.ts";
import { loadConfig, type ConfigKey } from "../../../src/config.ts";
import type { AppEvent } from "../../../src/events/bus.ts";
import { silentLogger } from "../../../src/log.ts";
import { serializeCreds } from "../../../src/network/baileys/auth-state.ts";
import { BaileysDriver, type BaileysOptions } from "../../../src/network/baileys/driver.ts";
import type { DriverEvent } from "../../../src/network/driver.ts";
import { encryptCredentials } from "../../../src/modules/sessions/credentials.ts";
import { createRuntime, type Runtime } from "../../../src/runtime.ts";
import type { TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

// The real BaileysDriver and the whole runtime (real SQLite, real migrations, sessions and
// messaging modules) over a scripted socket: it emits what baileys 7.0.0-rc14's socket emits
// (connection.update, creds.update, messages.upsert, messages.update) and records what the
// driver asks of it. Nothing leaves the machine.

export const KEY = "22".repeat(32);

/** A stand-in for baileys' WASocket with the parts the driver uses. */
export class FakeSocket {
  ev = new EventEmitter();
  ws = new EventEmitter();
  ended: unknown[] = [];
  sent: { jid: string; content: Record<string, unknown>; opts: { messageId?: string } }[] = [];
  /** LID -> PN JID, as baileys' LIDMappingStore knows it */
  lids = new Map<string, string>();
  lidLookupMs = 0;
  signalRepository = {
    lidMapping: {
      getPNForLID: async (lid: string) => {
        if (this.lidLookupMs) await Bun.sleep(this.lidLookupMs);
        return this.lids.get(lid) ?? null;
      },
    },
  };
  /** numbers without an account (onWhatsApp leaves them out of its answer), and the queries it got */
  absent = new Set<string>();
  onWhatsAppCalls: string[][] = [];
  async onWhatsApp(...jids: string[]) {
    this.onWhatsAppCalls.push(jids);
    return jids.filter((j) => !this.absent.has(j.split("@")[0]!)).map((jid) => ({ jid, exists: true }));
  }
  /** the next sends fail with this (a Boom like baileys throws), once each */
  failNext: Error[] = [];
  /** the groups the account is in, as the network answers `groupMetadata`, and the queries it got */
  groupMeta = new Map<string, GroupMetadata>();
  groupMetadataCalls: string[] = [];
  async groupMetadata(jid: string): Promise<GroupMetadata> {
    this.groupMetadataCalls.push(jid);
    const meta = this.groupMeta.get(jid);
    if (!meta) throw new Boom("item-not-found", { statusCode: 404 });
    return structuredClone(meta);
  }
  async groupFetchAllParticipating(): Promise<Record<string, GroupMetadata>> {
    return Object.fromEntries([...this.groupMeta].map(([jid, meta]) => [jid, structuredClone(meta)]));
  }

  constructor(readonly config: Record<string, any>) {}

  open(): void {
    this.ev.emit("connection.update", { connection: "open" });
  }
  close(statusCode: number, message = "Stream Errored"): void {
    this.ev.emit("connection.update", { connection: "close", lastDisconnect: { error: new Boom(message, { statusCode }), date: new Date() } });
  }
  end(error?: Error): void {
    this.ended.push(error);
    this.ev.emit("connection.update", { connection: "close", lastDisconnect: { error: error ?? new Boom("Connection Closed", { statusCode: 428 }), date: new Date() } });
  }
  upsert(messages: WAMessage[], type: "notify" | "append" = "notify"): void {
    this.ev.emit("messages.upsert", { messages, type });
  }
  async sendMessage(jid: string, content: Record<string, unknown>, opts: { messageId?: string }) {
    const err = this.failNext.shift();
    if (err) throw err;
    const id = opts.messageId ?? `3EB0${this.sent.length}`;
    // baileys' relayMessage to a group: the cached metadata first, else a groupMetadata query
    if (jid.endsWith("@g.us") && !(await this.config.cachedGroupMetadata?.(jid))?.participants) await this.groupMetadata(jid);
    this.sent.push({ jid, content, opts });
    const message = typeof content.text === "string" ? { conversation: content.text } : { audioMessage: {} };
    // baileys emits its own sends back (emitOwnEvents) before sendMessage resolves
    this.upsert([{ key: { remoteJid: jid, fromMe: true, id }, message, messageTimestamp: Math.floor(Date.now() / 1000) }], "append");
    return { key: { remoteJid: jid, fromMe: true, id }, message };
  }
  async logout(): Promise<void> {
    this.end(new Boom("Intentional Logout", { statusCode: 401 }));
  }
  async requestPairingCode(): Promise<string> {
    return "ABCD1234";
  }
  async updateMediaMessage(m: unknown) {
    return m;
  }
  /** media uploads (baileys encrypts the file first): what was uploaded, and where it "went" */
  uploads: { path: string; mediaType: string; bytes: number }[] = [];
  waUploadToServer = async (path: string, o: { mediaType: string; fileEncSha256B64: string }) => {
    this.uploads.push({ path, mediaType: o.mediaType, bytes: (await Bun.file(path).bytes()).length });
    const directPath = `/v/t62.7118-24/${this.uploads.length}?ccb=11-4`;
    return { mediaUrl: `https://mmg.whatsapp.net${directPath}`, directPath };
  };
}

export interface Harness {
  rt: Runtime;
  ws: TestWorkspace;
  clock: ManualClock;
  driver: BaileysDriver;
  sockets: FakeSocket[];
  driverEvents: DriverEvent[];
  appEvents: AppEvent[];
  dataDir: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** a session linked before (status connected, sealed creds of a linked device), connected through the API */
  linkedSession(name?: string, phone?: string): Promise<{ id: string; phone: string; sock: FakeSocket }>;
  last(): FakeSocket;
}

/** Polls until `fn` is truthy. */
export async function until<T>(fn: () => T | Promise<T>, what: string, ms = 3000): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(2);
  }
}

export async function harness(
  o: { driver?: Partial<BaileysOptions>; config?: Partial<Record<ConfigKey, unknown>>; fileDb?: boolean; dataDir?: string } = {},
): Promise<Harness> {
  const dataDir = o.dataDir ?? mkdtempSync(join(tmpdir(), "parley-baileys-"));
  const sockets: FakeSocket[] = [];
  const driverEvents: DriverEvent[] = [];
  const appEvents: AppEvent[] = [];
  const driver = new BaileysDriver({
    log: silentLogger,
    dataDir,
    backoff: { baseMs: 5, maxMs: 20, jitter: 0 },
    makeSocket: (config) => {
      const s = new FakeSocket(config as never);
      sockets.push(s);
      // a linked device's socket opens by itself, as the network answers a known device
      if ((config as any).auth.creds.me) queueMicrotask(() => s.open());
      return s as never;
    },
    ...o.driver,
  });
  driver.onEvent((e) => driverEvents.push(e));
  const clock = new ManualClock(new Date());
  const rt = await createRuntime(loadConfig({ network: "baileys", dataDir, logLevel: "silent", sendMinGapMs: 0, sendJitterMs: 0, ...o.config }), silentLogger, {
    dbPath: o.fileDb ? undefined : ":memory:",
    clock,
    network: driver,
    secrets: { jwtSecret: "s".repeat(48), credentialKey: KEY },
  });
  rt.deps.bus.subscribe((e) => appEvents.push(e));
  const ws = await createWorkspace({ ...rt, clock } as unknown as TestApp, { planId: "pro", status: "active" });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await rt.app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${ws.owner.token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    return { status: res.status, body: (await res.json()) as any };
  };
  let seq = 0;
  return {
    rt,
    ws,
    clock,
    driver,
    sockets,
    driverEvents,
    appEvents,
    dataDir,
    call,
    last: () => sockets.at(-1)!,
    async linkedSession(name = `linked ${++seq}`, phone = `9198000${String(10_000 + seq).slice(-5)}`) {
      const id = (await call("POST", "/api/v1/chatapp", { name })).body.data.id as string;
      const creds = initAuthCreds();
      Object.assign(creds, { me: { id: `${phone}:7@s.whatsapp.net` }, account: { details: Buffer.from([1]) } });
      await rt.deps.db.prepare("UPDATE chat_sessions SET credentials = ?, phone_number = ? WHERE id = ?").run(encryptCredentials(KEY, id, serializeCreds(creds)), phone, id);
      const r = await call("POST", `/api/v1/chatapp/${id}/connect`);
      if (r.status !== 200) throw new Error(`connect answered ${r.status}: ${JSON.stringify(r.body)}`);
      await until(async () => await rt.deps.db.prepare("SELECT 1 FROM chat_sessions WHERE id = ? AND status = 'connected'").get(id), "connected");
      return { id, phone, sock: sockets.at(-1)! };
    },
  };
}
