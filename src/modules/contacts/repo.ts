import { and, asc, count, desc, eq, gt, or, sql, type SQL } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import type { ContactFilter } from "./model.ts";
import { contacts } from "./table.ts";

export type ContactRow = typeof contacts.$inferSelect;

/** The contact with a phone number, if any. */
export function findContactByPhone(db: DB, workspaceId: string, phone: string): ContactRow | undefined {
  return db.select().from(contacts).where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.phone, phone))).get();
}

/** One contact by id. */
export function findContact(db: DB, workspaceId: string, id: string): ContactRow | undefined {
  return db.select().from(contacts).where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id))).get();
}

/** How many contacts the workspace has (the `contacts` quota). */
export function countContacts(db: DB, workspaceId: string): number {
  return db.select({ n: count() }).from(contacts).where(eq(contacts.workspaceId, workspaceId)).get()?.n ?? 0;
}

/** Inserts a contact seen on an inbound message (no tags or attributes yet). */
export function insertContact(db: DB, workspaceId: string, row: { id: string; phone: string; pushName: string | null; at: number; inbound: boolean }): void {
  db.insert(contacts)
    .values({
      id: row.id,
      workspaceId,
      phone: row.phone,
      pushName: row.pushName,
      lastInboundAt: row.inbound ? row.at : null,
      createdAt: row.at,
      updatedAt: row.at,
    })
    .run();
}

/** Records an inbound message: the latest push name and when the contact last wrote. */
export function touchContactInbound(db: DB, workspaceId: string, id: string, pushName: string | null, at: number): void {
  db.update(contacts)
    .set({ pushName: pushName === null ? sql`push_name` : pushName, lastInboundAt: at, updatedAt: at })
    .where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id)))
    .run();
}

/** Removes a contact; its tag and attribute rows go by cascade. Returns whether it existed. */
export function deleteContactRow(db: DB, workspaceId: string, id: string): boolean {
  return db.delete(contacts).where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id))).returning({ id: contacts.id }).all().length > 0;
}

/** The list's filters (search, any of the tags, opted out) as one condition. */
function filterWhere(workspaceId: string, q: ContactFilter): SQL {
  const term = q.search ? `%${q.search.replace(/[%_\\]/g, (c) => "\\" + c)}%` : null;
  return and(
    eq(contacts.workspaceId, workspaceId),
    term ? or(sql`${contacts.phone} LIKE ${term} ESCAPE '\\'`, sql`${contacts.name} LIKE ${term} ESCAPE '\\'`, sql`${contacts.pushName} LIKE ${term} ESCAPE '\\'`) : undefined,
    q.tag?.length
      ? sql`${contacts.id} IN (SELECT contact_id FROM contact_tags WHERE workspace_id = ${workspaceId} AND tag IN (${sql.join(
          q.tag.map((t) => sql`${t}`),
          sql`, `,
        )}))`
      : undefined,
    q.optedOut === undefined ? undefined : eq(contacts.optedOut, q.optedOut),
  )!;
}

/** A page of contacts, newest first, with the list's filters. */
export function listContacts(db: DB, workspaceId: string, q: ContactFilter & { limit: number; offset: number }): { rows: ContactRow[]; total: number } {
  const where = filterWhere(workspaceId, q);
  const rows = db.select().from(contacts).where(where).orderBy(desc(contacts.createdAt), desc(contacts.id)).limit(q.limit).offset(q.offset).all();
  const total = db.select({ n: count() }).from(contacts).where(where).get()?.n ?? 0;
  return { rows, total };
}

/** The next `limit` contacts in id order after `afterId` with the list's filters (keyset: the export). */
export function contactsAfter(db: DB, workspaceId: string, q: ContactFilter, afterId: string, limit: number): ContactRow[] {
  return db
    .select()
    .from(contacts)
    .where(and(filterWhere(workspaceId, q), gt(contacts.id, afterId)))
    .orderBy(asc(contacts.id))
    .limit(limit)
    .all();
}

/** Every attribute key in use in the workspace, sorted (the export's columns). */
export function attributeKeys(db: DB, workspaceId: string): string[] {
  const rows = db.all<{ key: string }>(sql`SELECT DISTINCT key FROM contact_attributes WHERE workspace_id = ${workspaceId} ORDER BY key`);
  return rows.map((r) => r.key);
}
