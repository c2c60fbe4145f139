import type { OutboundMessage, SentLookup } from "../driver.ts";
import { storedContent } from "./media.ts";

/** Builds the network's content of a stored media message, uploading its file again (the first upload's keys are not stored). */
export type MediaRebuild = (m: OutboundMessage) => Promise<unknown>;

/**
 * What one session sent lately (ids with their content), kept beside the session so it
 * outlives sockets: the network's echo of a send is recognised by id before the send even
 * returns, and baileys' getMessage (the recipient's device asks for a message again to have
 * it re-encrypted) answers from here, else from the database's copy (`lookupSent`): a text as
 * it is, a media message from its stored file, uploaded again (`rebuild`).
 */
export class SentLog {
  private recent = new Map<string, unknown>();

  constructor(
    private lookupSent?: SentLookup,
    private max = 500,
    private rebuild?: MediaRebuild,
  ) {}

  /** Records an id (content null while the send is in flight). */
  remember(id: string, content: unknown): void {
    this.recent.delete(id);
    this.recent.set(id, content);
    if (this.recent.size > this.max) this.recent.delete(this.recent.keys().next().value!);
  }

  /** Whether Parley sent this id (an echo of it is not the owner writing from the phone). */
  has(id: string): boolean {
    return this.recent.has(id);
  }

  /** The content to send again for a retry request, if known. */
  async content(id: string | null | undefined): Promise<unknown> {
    if (!id) return undefined;
    const kept = this.recent.get(id);
    if (kept) return kept;
    const stored = await this.lookupSent?.(id).catch(() => undefined);
    if (!stored) return undefined;
    if (stored.media && this.rebuild) {
      const content = await this.rebuild(stored).catch(() => undefined);
      // kept: the next retry request of the same message does not upload it again
      if (content) this.remember(id, content);
      return content;
    }
    return storedContent(stored);
  }
}
