import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { GroupInfo } from "../driver.ts";
import { isGroupAddress } from "../group-address.ts";

/**
 * The sim network's group chats: each belongs to the session that created it (the session's
 * number is a member besides `participants`). With a file (`<dataDir>/sim-groups.json`) they
 * survive a restart, as the network's groups would.
 */
export class SimGroups {
  private bySession = new Map<string, Map<string, GroupInfo>>();

  constructor(private file?: string) {
    if (!file || !existsSync(file)) return;
    const stored = JSON.parse(readFileSync(file, "utf8")) as Record<string, GroupInfo[]>;
    for (const [sessionId, groups] of Object.entries(stored)) this.bySession.set(sessionId, new Map(groups.map((g) => [g.id, g])));
  }

  /** Creates a group the session is in; its address has the network's form (`<digits>@g.us`). */
  create(sessionId: string, name: string, participants: string[]): GroupInfo {
    const digits = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => String(b % 10)).join("");
    const group: GroupInfo = { id: `120363${digits}@g.us`, name, participants: [...new Set(participants)] };
    let groups = this.bySession.get(sessionId);
    if (!groups) this.bySession.set(sessionId, (groups = new Map()));
    groups.set(group.id, group);
    this.save();
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

  private save(): void {
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    // write-then-rename: a crash never leaves half a file behind
    const tmp = `${this.file}.${process.pid}.tmp`;
    const all = Object.fromEntries([...this.bySession].map(([sessionId, groups]) => [sessionId, [...groups.values()]]));
    writeFileSync(tmp, JSON.stringify(all) + "\n", { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
