import { and, asc, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { chatGroups } from "./table.ts";

/** A group of a session as Parley knows it. */
export interface StoredGroup {
  id: string;
  name: string | null;
  participants: string[];
}

const parse = (r: { id: string; name: string | null; participants: string }): StoredGroup => ({ id: r.id, name: r.name, participants: JSON.parse(r.participants) as string[] });

/**
 * Records what the network says of a group: a name or member list left out (null) keeps
 * the stored one, so a group message that only names the group never forgets its members.
 */
export async function upsertGroup(
  db: DB,
  workspaceId: string,
  sessionId: string,
  g: { id: string; name?: string | null; participants?: string[] | null },
  at: number,
): Promise<void> {
  const participants = g.participants ? JSON.stringify(g.participants) : null;
  // every message of a group names it: a group already known as it is costs a read, not a write
  const known = await db
    .select({ name: chatGroups.name, participants: chatGroups.participants })
    .from(chatGroups)
    .where(and(eq(chatGroups.workspaceId, workspaceId), eq(chatGroups.sessionId, sessionId), eq(chatGroups.id, g.id)))
    .get();
  if (known && (g.name == null || g.name === known.name) && (participants === null || participants === known.participants)) return;
  await db
    .insert(chatGroups)
    .values({ workspaceId, sessionId, id: g.id, name: g.name ?? null, participants: participants ?? "[]", updatedAt: at })
    .onConflictDoUpdate({
      target: [chatGroups.workspaceId, chatGroups.sessionId, chatGroups.id],
      set: {
        name: sql`coalesce(${g.name ?? null}, ${chatGroups.name})`,
        participants: sql`coalesce(${participants}, ${chatGroups.participants})`,
        updatedAt: at,
      },
    })
    .run();
}

/** The groups of a session that Parley knows (listed or seen on a message), by name. */
export async function storedGroups(db: DB, workspaceId: string, sessionId: string): Promise<StoredGroup[]> {
  const rows = await db
    .select({ id: chatGroups.id, name: chatGroups.name, participants: chatGroups.participants })
    .from(chatGroups)
    .where(and(eq(chatGroups.workspaceId, workspaceId), eq(chatGroups.sessionId, sessionId)))
    .orderBy(asc(chatGroups.name), asc(chatGroups.id))
    .all();
  return rows.map(parse);
}

/** One group of a session, if Parley knows it. */
export async function findGroup(db: DB, workspaceId: string, sessionId: string, id: string): Promise<StoredGroup | undefined> {
  const r = await db
    .select({ id: chatGroups.id, name: chatGroups.name, participants: chatGroups.participants })
    .from(chatGroups)
    .where(and(eq(chatGroups.workspaceId, workspaceId), eq(chatGroups.sessionId, sessionId), eq(chatGroups.id, id)))
    .get();
  return r ? parse(r) : undefined;
}

/** A member known by LID turned out to be a phone number: every group list of the workspace names the number. */
export async function renameMember(db: DB, workspaceId: string, lid: string, phone: string, at: number): Promise<void> {
  // the members are a JSON array of strings: the quoted address is replaced whole, never a part of another
  await db
    .update(chatGroups)
    .set({ participants: sql`replace(${chatGroups.participants}, ${JSON.stringify(lid)}, ${JSON.stringify(phone)})`, updatedAt: at })
    .where(and(eq(chatGroups.workspaceId, workspaceId), sql`${chatGroups.participants} LIKE ${"%" + JSON.stringify(lid) + "%"}`))
    .run();
}
