import type { GroupInfo } from "../driver.ts";
import { isGroupAddress } from "../group-address.ts";

/**
 * The sim network's group chats: each belongs to the session that created it (the session's
 * number is a member besides `participants`). Kept in memory: a restarted sim network has
 * no groups until they are created again.
 */
export class SimGroups {
  private bySession = new Map<string, Map<string, GroupInfo>>();

  /** Creates a group the session is in; its address has the network's form (`<digits>@g.us`). */
  create(sessionId: string, name: string, participants: string[]): GroupInfo {
    const digits = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => String(b % 10)).join("");
    const group: GroupInfo = { id: `120363${digits}@g.us`, name, participants: [...new Set(participants)] };
    let groups = this.bySession.get(sessionId);
    if (!groups) this.bySession.set(sessionId, (groups = new Map()));
    groups.set(group.id, group);
    return group;
  }

  /** A group the session is in. */
  get(sessionId: string, groupId: string): GroupInfo | undefined {
    return this.bySession.get(sessionId)?.get(groupId);
  }

  /** Every group the session is in, oldest first. */
  list(sessionId: string): GroupInfo[] {
    return [...(this.bySession.get(sessionId)?.values() ?? [])].map((g) => ({ ...g, participants: [...g.participants] }));
  }

  /** Whether a send to `to` can be delivered: any number, or a group the session is in. */
  canReach(sessionId: string, to: string): boolean {
    return !isGroupAddress(to) || this.get(sessionId, to) !== undefined;
  }
}
