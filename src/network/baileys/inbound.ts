import { readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { downloadMediaMessage, type WAMessage, type WASocket } from "baileys";
import type { Logger } from "../../log.ts";
import type { GroupInfo, InboundMessage, MediaFile, MessageType } from "../driver.ts";
import type { DriverEmitter } from "../emitter.ts";
import { downloadToFile, MediaTooLarge } from "./inbound-media.ts";
import { baileysLogger } from "./logger.ts";
import { phoneOfJid, translateInbound, translateUndecryptable, type Counterpart } from "./translate.ts";

/** The media caps (docs/messages.md), the network's own: a bigger file is not downloaded. */
export const DEFAULT_MEDIA_CAPS: Record<Exclude<MessageType, "text">, number> = {
  image: 5 * 1024 * 1024,
  audio: 16 * 1024 * 1024,
  video: 16 * 1024 * 1024,
  document: 100 * 1024 * 1024,
};

type LidSocket = { signalRepository?: { lidMapping?: { getPNForLID(lid: string): Promise<string | null> } } };

/**
 * The phone number behind a LID when the socket's mapping store knows it (learned from the
 * network), else the LID address itself (`<digits>@lid`): Parley replies to that address and
 * never takes LID digits for a phone number.
 */
export async function resolveCounterpart(sock: LidSocket, c: Counterpart, log?: Logger): Promise<string> {
  if ("phone" in c) return c.phone;
  try {
    const pn = await sock.signalRepository?.lidMapping?.getPNForLID(c.lid);
    const phone = pn && pn.includes("@s.whatsapp.net") ? phoneOfJid(pn) : undefined;
    if (phone) return phone;
  } catch (err) {
    log?.debug("LID not resolved", { lid: c.lid, err });
  }
  return c.lid;
}

/** A download file older than this was never taken over (the message was a repeat, or the process died): removed. */
const ORPHAN_MS = 3_600_000;

/** Turns one upserted message into an `inbound` (a contact wrote) or `outbound_echo` (the owner wrote from the phone) event. */
export class InboundHandler {
  private sweptAt = 0;

  constructor(
    private o: {
      log: Logger;
      logLevel?: string;
      dataDir?: string;
      mediaCaps?: Partial<Record<MessageType, number>>;
      emitter: DriverEmitter;
    },
  ) {}

  private get dir(): string {
    return join(this.o.dataDir ?? tmpdir(), "media", ".incoming");
  }

  /** Removes download files nobody took over (at most once an hour; called when a session connects). */
  async sweep(now = Date.now()): Promise<number> {
    if (now - this.sweptAt < ORPHAN_MS && this.sweptAt) return 0;
    this.sweptAt = now;
    let removed = 0;
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      const file = join(this.dir, name);
      const info = await stat(file).catch(() => null);
      if (info && now - info.mtimeMs > ORPHAN_MS) {
        await rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** `describeGroup`: the group a group message was written in (cached metadata), for its name and members. */
  async handle(sessionId: string, sock: WASocket, m: WAMessage, describeGroup?: (jid: string) => Promise<GroupInfo | undefined>): Promise<void> {
    const lost = translateUndecryptable(m, new Date());
    if (lost) {
      // baileys already asked the sender's device for it again: keep a placeholder meanwhile
      this.o.log.warn("inbound message could not be decrypted; placeholder kept, the network asked to send it again", { sessionId, networkMessageId: lost.message.networkMessageId, error: lost.error });
      if (lost.fromMe) return; // the owner's own message from another device: nothing to show in its place
      const from = await resolveCounterpart(sock as unknown as LidSocket, lost.counterpart, this.o.log);
      const group = lost.group ? ((await describeGroup?.(lost.group)) ?? { id: lost.group }) : undefined;
      this.o.emitter.emit({ type: "inbound", sessionId, message: { ...lost.message, from, ...(group ? { group } : {}) } });
      return;
    }
    const t = translateInbound(m, new Date());
    if (!t) return;
    // the owner's own message in a group goes to the group; anyone else's names its writer
    const address = t.group && t.fromMe ? t.group : await resolveCounterpart(sock as unknown as LidSocket, t.counterpart, this.o.log);
    const group = t.group && !t.fromMe ? ((await describeGroup?.(t.group)) ?? { id: t.group }) : undefined;
    const media = t.media ? await this.download(sessionId, sock, m, t.message.type as Exclude<MessageType, "text">, t.media) : undefined;
    const message: InboundMessage = { ...t.message, from: address, ...(group ? { group } : {}), ...(media ? { media } : {}) };
    if (t.fromMe) {
      const { from: _from, pushName: _p, group: _g, ...rest } = message;
      this.o.emitter.emit({ type: "outbound_echo", sessionId, message: { ...rest, to: address } });
    } else {
      this.o.emitter.emit({ type: "inbound", sessionId, message });
    }
  }

  /** Streams the media to a file, capped before and during the download; a failure keeps the message without media. */
  private async download(
    sessionId: string,
    sock: WASocket,
    m: WAMessage,
    type: Exclude<MessageType, "text">,
    info: { mimeType: string; filename?: string; fileLength?: number },
  ): Promise<MediaFile | undefined> {
    const cap = this.o.mediaCaps?.[type] ?? DEFAULT_MEDIA_CAPS[type];
    try {
      const { file, size } = await downloadToFile(
        () => downloadMediaMessage(m, "stream", {}, { logger: baileysLogger(this.o.log, this.o.logLevel), reuploadRequest: sock.updateMediaMessage }),
        { dir: this.dir, name: Bun.randomUUIDv7(), cap, declared: info.fileLength },
      );
      return { file, size, mimeType: info.mimeType, filename: info.filename };
    } catch (err) {
      const fields = { sessionId, networkMessageId: m.key.id, err };
      if (err instanceof MediaTooLarge) this.o.log.warn("inbound media over the cap; not downloaded", { ...fields, size: err.size, cap: err.cap });
      else this.o.log.warn("inbound media download failed", fields);
      return undefined;
    }
  }
}
