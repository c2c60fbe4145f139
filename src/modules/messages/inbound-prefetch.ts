import type { DB } from "../../db/store.ts";
import { groupLocal, groupOnce, groupWarm } from "../../db/group-memo.ts";
import type { InboundContact } from "../contacts/service.ts";
import { inboundContactsOf } from "../contacts/service.ts";
import { conversationsOfPhones, type ConversationRow } from "../inbox/repo.ts";
import { inboundCopies } from "./repo.ts";

/** The session an inbound message arrived on, as its step needs it. */
type Owner = { workspaceId: string } | undefined;

/** A text message waiting for its group: what its step will read. */
export interface InboundWant {
  sessionId: string;
  networkMessageId: string;
  /** the sender's phone (null: a group chat's message, no contact) */
  phone: string | null;
  /** the conversation's address: the sender's phone, or the group chat's id */
  address: string;
  /** groups opened before this message was queued */
  opened: number;
}

/** What a step's message reads, read for its whole group at once. */
export interface Prefetched {
  /** the message stored before the group (a repeat), if any */
  copy: { errorCode: string | null } | undefined;
  /** the sender's contact before the group, if any */
  contact: InboundContact | undefined;
  /** the conversation before the group, if any */
  conversation: ConversationRow | undefined;
}

/**
 * What the steps of one group wrote that a later step of it must see instead of what the group
 * read at its start: the messages stored (by workspace, session and network id: their error code,
 * null for a final one), the contacts recorded (by workspace and phone) and the conversations
 * touched (by workspace, session and address). `direct`: a step recorded its contact or its
 * conversation without the group's reads (a message with media); the later steps of the group
 * then read and write theirs themselves.
 */
export interface InboundGroupState {
  stored: Map<string, string | null>;
  contacts: Map<string, InboundContact>;
  conversations: Map<string, ConversationRow>;
  direct: boolean;
}

/** The state of the current group (undefined outside one). */
export function inboundGroupState(): InboundGroupState | undefined {
  return groupLocal("messages.inbound", () => ({ stored: new Map(), contacts: new Map(), conversations: new Map(), direct: false }));
}

export const storedKey = (workspaceId: string, sessionId: string, networkMessageId: string) => `${workspaceId}\u0000${sessionId}\u0000${networkMessageId}`;
export const contactKey = (workspaceId: string, phone: string) => `${workspaceId}\u0000${phone}`;
export const conversationKey = storedKey;

/**
 * The reads of a group's text messages made once for the group, at its start, in one flight:
 * which network ids are stored already and the conversations (one statement each per session),
 * and the senders' contacts (one statement per workspace). A message queued registers what it will read (`want`); the first
 * step of a group reads for every message queued before the group opened (`take`).
 */
export class InboundWants {
  private pending = new Set<InboundWant>();
  private opens = 0;

  want(sessionId: string, networkMessageId: string, phone: string | null, address: string): InboundWant {
    const w = { sessionId, networkMessageId, phone, address, opened: this.opens };
    this.pending.add(w);
    return w;
  }

  /** A group opens (call synchronously as its items are taken from the queue). */
  opened(): void {
    this.opens++;
  }

  /**
   * The step of `w` runs: what the group read for it, or undefined outside a group (the step
   * reads for itself). Call first in the step, once.
   */
  async take(db: DB, w: InboundWant, ownerOf: (sessionId: string) => Promise<Owner>): Promise<Prefetched | undefined> {
    try {
      if (!inboundGroupState()) return undefined;
      const opens = this.opens;
      const read = await groupOnce("messages.inbound-prefetch", () => this.read(db, [...this.pending].filter((p) => p.opened < opens), ownerOf));
      return read.get(w);
    } finally {
      this.pending.delete(w);
    }
  }

  private async read(db: DB, wants: InboundWant[], ownerOf: (sessionId: string) => Promise<Owner>): Promise<Map<InboundWant, Prefetched>> {
    const owners = new Map<string, Owner>();
    await Promise.all([...new Set(wants.map((w) => w.sessionId))].map(async (s) => owners.set(s, await ownerOf(s))));
    const ids = new Map<string, { ws: string; sessionId: string; nids: Set<string>; addresses: Set<string> }>();
    const phones = new Map<string, Set<string>>();
    for (const w of wants) {
      const ws = owners.get(w.sessionId)?.workspaceId;
      if (!ws) continue;
      const sk = `${ws}\u0000${w.sessionId}`;
      let s = ids.get(sk);
      if (!s) ids.set(sk, (s = { ws, sessionId: w.sessionId, nids: new Set(), addresses: new Set() }));
      s.nids.add(w.networkMessageId);
      s.addresses.add(w.address);
      if (w.phone !== null) {
        let p = phones.get(ws);
        if (!p) phones.set(ws, (p = new Set()));
        p.add(w.phone);
      }
    }
    // every statement in one flight (PostgreSQL), with the reads the steps' events make once per
    // group for their workspaces (webhooks, keywords, automations: onGroupWarm)
    const [copies, contacts, conversations] = await Promise.all([
      Promise.all([...ids.values()].map(async (s) => [s, await inboundCopies(db, s.ws, s.sessionId, [...s.nids])] as const)),
      Promise.all([...phones].map(async ([ws, p]) => [ws, await inboundContactsOf({ db }, ws, [...p])] as const)),
      Promise.all([...ids.values()].map(async (s) => [s, await conversationsOfPhones(db, s.ws, s.sessionId, [...s.addresses])] as const)),
      Promise.all([...new Set([...ids.values()].map((s) => s.ws))].map((ws) => groupWarm(db, ws))),
    ]);
    const copyOf = new Map<string, { errorCode: string | null }>();
    for (const [s, found] of copies) for (const [nid, c] of found) copyOf.set(storedKey(s.ws, s.sessionId, nid), c);
    const conversationOf = new Map<string, ConversationRow>();
    for (const [s, found] of conversations) for (const [address, c] of found) conversationOf.set(conversationKey(s.ws, s.sessionId, address), c);
    const contactOf = new Map<string, InboundContact>();
    for (const [ws, found] of contacts) for (const [phone, c] of found) contactOf.set(contactKey(ws, phone), c);
    const out = new Map<InboundWant, Prefetched>();
    for (const w of wants) {
      const ws = owners.get(w.sessionId)?.workspaceId;
      if (!ws) continue;
      out.set(w, {
        copy: copyOf.get(storedKey(ws, w.sessionId, w.networkMessageId)),
        contact: w.phone === null ? undefined : contactOf.get(contactKey(ws, w.phone)),
        conversation: conversationOf.get(conversationKey(ws, w.sessionId, w.address)),
      });
    }
    return out;
  }
}
