import { jidDecode, type GroupMetadata, type GroupParticipant, type ParticipantAction } from "baileys";
import type { Logger } from "../../log.ts";
import type { GroupInfo } from "../driver.ts";
import { phoneOfJid } from "./translate.ts";

// Group chats on the real network: metadata cached per session (baileys asks `cachedGroupMetadata`
// before every group send and would otherwise query the network each time), members' LIDs mapped
// to phone numbers where the socket's mapping store knows them.

/** The parts of baileys' socket the group code uses. */
export interface GroupSocket {
  groupMetadata(jid: string): Promise<GroupMetadata>;
  groupFetchAllParticipating(): Promise<Record<string, GroupMetadata>>;
  signalRepository?: { lidMapping?: { getPNForLID(lid: string): Promise<string | null> } };
}

const MAX_GROUPS = 5_000;

/**
 * The metadata of the groups a session is in, filled from `groupMetadata` answers and the
 * socket's `groups.upsert`, `groups.update` and `group-participants.update` events, and read by
 * baileys through `cachedGroupMetadata`. Outlives the socket (a reconnect keeps it).
 */
export class GroupCache {
  private groups = new Map<string, GroupMetadata>();
  /** lookups in flight: two messages of one group at once ask the network once */
  private pending = new Map<string, Promise<GroupMetadata | undefined>>();

  /** baileys' `cachedGroupMetadata`: what is known, without asking the network. */
  get(jid: string): GroupMetadata | undefined {
    return this.groups.get(jid);
  }

  /** Records a group's full metadata (a `groupMetadata` answer, `groups.upsert`). */
  set(meta: GroupMetadata): void {
    if (!meta?.id) return;
    this.groups.delete(meta.id);
    this.groups.set(meta.id, meta);
    if (this.groups.size > MAX_GROUPS) this.groups.delete(this.groups.keys().next().value!);
  }

  /** `groups.update`: changed fields (subject, settings) of groups already known. */
  update(changes: Partial<GroupMetadata>[]): void {
    for (const c of changes) {
      const known = c.id ? this.groups.get(c.id) : undefined;
      if (known) this.groups.set(known.id, { ...known, ...c, participants: c.participants ?? known.participants });
    }
  }

  /** `group-participants.update`: members added, removed, promoted or demoted. */
  participants(u: { id: string; participants: (GroupParticipant | string)[]; action: ParticipantAction }): void {
    const known = this.groups.get(u.id);
    if (!known) return;
    const changed = u.participants.map((p) => (typeof p === "string" ? { id: p } : p));
    const ids = new Set(changed.map((p) => p.id));
    let list = known.participants;
    if (u.action === "add") list = [...list.filter((p) => !ids.has(p.id)), ...changed];
    else if (u.action === "remove") list = list.filter((p) => !ids.has(p.id));
    else if (u.action === "promote" || u.action === "demote") {
      const admin = u.action === "promote" ? ("admin" as const) : null;
      list = list.map((p) => (ids.has(p.id) ? { ...p, admin } : p));
    } else list = list.map((p) => ({ ...p, ...changed.find((c) => c.id === p.id) }));
    this.groups.set(u.id, { ...known, participants: list, size: list.length });
  }

  /** The metadata of a group: cached, else asked of the network once (and cached). Undefined when the network does not answer. */
  async fetch(sock: GroupSocket, jid: string, log?: Logger): Promise<GroupMetadata | undefined> {
    const known = this.groups.get(jid);
    if (known) return known;
    let p = this.pending.get(jid);
    if (!p) {
      p = sock.groupMetadata(jid).then(
        (meta) => (this.set(meta), meta),
        (err) => (log?.warn("group metadata not fetched", { jid, err }), undefined),
      );
      this.pending.set(jid, p);
      void p.finally(() => this.pending.delete(jid));
    }
    return p;
  }
}

/**
 * A member's phone number: the participant's phone-number JID when the network gave one, else
 * the socket's LID mapping, else the LID address itself (`<digits>@lid`), never its digits.
 */
export async function memberAddress(sock: GroupSocket, p: Pick<GroupParticipant, "id" | "lid" | "phoneNumber">): Promise<string> {
  for (const jid of [p.phoneNumber, p.id]) {
    if (jid && jidDecode(jid)?.server === "s.whatsapp.net") return phoneOfJid(jid)!;
  }
  const lid = [p.lid, p.id].find((j) => j && jidDecode(j)?.server === "lid");
  const user = lid ? jidDecode(lid)?.user : undefined;
  if (!user) return p.id;
  const pn = await sock.signalRepository?.lidMapping?.getPNForLID(lid!).catch(() => null);
  return (pn && jidDecode(pn)?.server === "s.whatsapp.net" && phoneOfJid(pn)) || `${user}@lid`;
}

/** Parley's view of a group: its id, subject and members (phones where known). */
export async function groupInfoOf(sock: GroupSocket, meta: GroupMetadata): Promise<GroupInfo> {
  const participants = await Promise.all((meta.participants ?? []).map((p) => memberAddress(sock, p)));
  return { id: meta.id, name: meta.subject ?? null, participants: [...new Set(participants)] };
}
