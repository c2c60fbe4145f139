import { and, asc, count, desc, eq, gt, or, sql, type SQL } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import type { ContactFilter } from "./model.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { contacts } from "./table.ts";

export type ContactRow = typeof contacts.$inferSelect;

/** The contact with a phone number, if any. */
export function findContactByPhone(db: DB, workspaceId: string, phone: string): ContactRow | undefined {
  return byPhoneStmt(db).get({ ws: workspaceId, phone });
}
// prepared once: every send and every inbound message looks the contact up
const byPhoneStmt = preparedOnce((db) =>
  db.select().from(contacts).where(and(eq(contacts.workspaceId, sql.placeholder("ws")), eq(contacts.phone, sql.placeholder("phone")))).prepare(),
);

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
  touchInboundStmt(db).run({ ws: workspaceId, id, pushName, at });
}
const touchInboundStmt = preparedOnce((db) =>
  db
    .update(contacts)
    .set({ pushName: sql`coalesce(${sql.placeholder("pushName")}, push_name)`, lastInboundAt: sql`${sql.placeholder("at")}`, updatedAt: sql`${sql.placeholder("at")}` })
    .where(and(eq(contacts.workspaceId, sql.placeholder("ws")), eq(contacts.id, sql.placeholder("id"))))
    .prepare(),
);

/** Moves a contact to another phone number (the LID it was recorded under turned out to be that number). */
export function setContactPhone(db: DB, workspaceId: string, id: string, phone: string, at: number): void {
  db.update(contacts).set({ phone, updatedAt: at }).where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id))).run();
}

/** Sets the push name and the time of the last inbound message (a merge keeps the latest of both contacts). */
export function setContactActivity(db: DB, workspaceId: string, id: string, pushName: string | null, lastInboundAt: number | null, at: number): void {
  db.update(contacts).set({ pushName, lastInboundAt, updatedAt: at }).where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id))).run();
}

/** Removes a contact; its tag and attribute rows go by cascade. Returns whether it existed. */
export function deleteContactRow(db: DB, workspaceId: string, id: string): boolean {
  return db.delete(contacts).where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id))).returning({ id: contacts.id }).all().length > 0;
}

/**
 * The list's filters (search, any of the tags, opted out) as one condition. `correlated` puts
 * the tag condition as a per-contact probe (EXISTS) instead of the whole tag set listed once
 * per execution: what a keyset walk needs, where each batch is one execution.
 */
function filterWhere(workspaceId: string, q: ContactFilter, correlated = false): SQL {
  const tags = q.tag?.length ? sql.join(q.tag.map((t) => sql`${t}`), sql`, `) : null;
  const term = q.search ? `%${q.search.replace(/[%_\\]/g, (c) => "\\" + c)}%` : null;
  return and(
    eq(contacts.workspaceId, workspaceId),
    term ? or(sql`${contacts.phone} LIKE ${term} ESCAPE '\\'`, sql`${contacts.name} LIKE ${term} ESCAPE '\\'`, sql`${contacts.pushName} LIKE ${term} ESCAPE '\\'`) : undefined,
    tags === null
      ? undefined
      : correlated
        ? sql`EXISTS (SELECT 1 FROM contact_tags WHERE workspace_id = ${workspaceId} AND tag IN (${tags}) AND contact_id = ${contacts.id})`
        : sql`${contacts.id} IN (SELECT contact_id FROM contact_tags WHERE workspace_id = ${workspaceId} AND tag IN (${tags}))`,
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

/** The query of `contactsAfter` (its plan is tested: a batch must cost its size, not the whole tag set). */
export function contactsAfterQuery(db: DB, workspaceId: string, q: ContactFilter, afterId: string, limit: number) {
  return db
    .select()
    .from(contacts)
    .where(and(filterWhere(workspaceId, q, true), gt(contacts.id, afterId)))
    .orderBy(asc(contacts.id))
    .limit(limit);
}

/** The next `limit` contacts in id order after `afterId` with the list's filters (keyset: the export). */
export function contactsAfter(db: DB, workspaceId: string, q: ContactFilter, afterId: string, limit: number): ContactRow[] {
  return contactsAfterQuery(db, workspaceId, q, afterId, limit).all();
}

/** Every attribute key in use in the workspace, sorted (the export's columns). */
export function attributeKeys(db: DB, workspaceId: string): string[] {
  const rows = db.all<{ key: string }>(sql`SELECT DISTINCT key FROM contact_attributes WHERE workspace_id = ${workspaceId} ORDER BY key`);
  return rows.map((r) => r.key);
}
