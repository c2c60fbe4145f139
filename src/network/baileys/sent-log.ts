import type { SentLookup } from "../driver.ts";
import { storedContent } from "./media.ts";

/**
 * What one session sent lately (ids with their content), kept beside the session so it
 * outlives sockets: the network's echo of a send is recognised by id before the send even
 * returns, and baileys' getMessage (the network asks for a message again to re-encrypt it)
 * answers from here, else from the database's copy (`lookupSent`: texts only).
 */
export class SentLog {
  private recent = new Map<string, unknown>();

  constructor(
    private lookupSent?: SentLookup,
    private max = 500,
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
    return stored ? storedContent(stored) : undefined;
  }
}
