import { and, asc, count, desc, eq, gt, or, sql, type SQL } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { anyOf, anyOfArg } from "../../db/any-of.ts";
import type { ContactFilter } from "./model.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { contactCounts } from "./counts-repo.ts";
import { contacts } from "./table.ts";

export type ContactRow = typeof contacts.$inferSelect;

/** The contact with a phone number, if any. */
export async function findContactByPhone(db: DB, workspaceId: string, phone: string): Promise<ContactRow | undefined> {
  return byPhoneStmt(db).get({ ws: workspaceId, phone });
}
// prepared once: every send and every inbound message looks the contact up
const byPhoneStmt = preparedOnce((db) =>
  db.select().from(contacts).where(and(eq(contacts.workspaceId, sql.placeholder("ws")), eq(contacts.phone, sql.placeholder("phone")))).prepare(),
);

/** One contact by id. */
export async function findContact(db: DB, workspaceId: string, id: string): Promise<ContactRow | undefined> {
  return db.select().from(contacts).where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id))).get();
}


/** Inserts a contact seen on an inbound message (no tags or attributes yet). */
export async function insertContact(db: DB, workspaceId: string, row: { id: string; phone: string; pushName: string | null; at: number; inbound: boolean }): Promise<void> {
  await db
    .insert(contacts)
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

/**
 * Records an inbound message on the contact of a phone number, if there is one (the latest push
 * name and when it last wrote), and answers it as it now is: one statement where a look-up and
 * an update were two.
 */
export async function touchInboundByPhone(db: DB, workspaceId: string, phone: string, pushName: string | null, at: number): Promise<{ id: string; name: string | null; pushName: string | null } | undefined> {
  return await db
    .prepare<{ id: string; name: string | null; pushName: string | null }>(
      `UPDATE contacts SET push_name = coalesce(?, push_name), last_inbound_at = ?, updated_at = ?
       WHERE workspace_id = ? AND phone = ? RETURNING id, name, push_name AS "pushName"`,
    )
    .get(pushName, at, at, workspaceId, phone);
}

/** The contacts of several phone numbers of a workspace, in one statement, by phone. */
export async function contactsOfPhones(db: DB, workspaceId: string, phones: string[]): Promise<Map<string, { id: string; name: string | null; pushName: string | null }>> {
  // an index probe per phone on PostgreSQL, not a scan of the workspace's contacts (see anyOf)
  const rows = await db
    .prepare<{ id: string; phone: string; name: string | null; pushName: string | null }>(
      `SELECT id, phone, name, push_name AS "pushName" FROM contacts WHERE workspace_id = ? AND phone ${anyOf(db)}`,
    )
    .all(workspaceId, anyOfArg(db, phones));
  return new Map(rows.map((r) => [r.phone, { id: r.id, name: r.name, pushName: r.pushName }]));
}

/** `touchInboundByPhone` for a contact already known by id, answering nothing. */
export async function touchInboundById(db: DB, workspaceId: string, id: string, pushName: string | null, at: number): Promise<void> {
  await db
    .prepare(`UPDATE contacts SET push_name = coalesce(?, push_name), last_inbound_at = ?, updated_at = ? WHERE workspace_id = ? AND id = ?`)
    .run(pushName, at, at, workspaceId, id);
}

/** Moves a contact to another phone number (the LID it was recorded under turned out to be that number). */
export async function setContactPhone(db: DB, workspaceId: string, id: string, phone: string, at: number): Promise<void> {
  await db.update(contacts).set({ phone, updatedAt: at }).where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id))).run();
}

/** Sets the push name and the time of the last inbound message (a merge keeps the latest of both contacts). */
export async function setContactActivity(db: DB, workspaceId: string, id: string, pushName: string | null, lastInboundAt: number | null, at: number): Promise<void> {
  await db.update(contacts).set({ pushName, lastInboundAt, updatedAt: at }).where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id))).run();
}

/** Removes a contact; its tag and attribute rows go by cascade. Returns whether it existed. */
export async function deleteContactRow(db: DB, workspaceId: string, id: string): Promise<boolean> {
  return (await db.delete(contacts).where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id))).run()).changes > 0;
}

/**
 * The list's filters (search, any of the tags, opted out) as one condition. `correlated` puts
 * the tag condition as a per-contact probe (EXISTS) instead of the whole tag set listed once
 * per execution: what a keyset walk needs, where each batch is one execution. The search
 * ignores case (SQLite's LIKE does for ASCII; PostgreSQL needs ILIKE).
 */
function filterWhere(db: DB, workspaceId: string, q: ContactFilter, correlated = false): SQL {
  const tags = q.tag?.length ? sql.join(q.tag.map((t) => sql`${t}`), sql`, `) : null;
  const term = q.search ? `%${q.search.replace(/[%_\\]/g, (c) => "\\" + c)}%` : null;
  const like = sql.raw(db.engine === "postgres" ? "ILIKE" : "LIKE");
  return and(
    eq(contacts.workspaceId, workspaceId),
    term ? or(sql`${contacts.phone} ${like} ${term} ESCAPE '\\'`, sql`${contacts.name} ${like} ${term} ESCAPE '\\'`, sql`${contacts.pushName} ${like} ${term} ESCAPE '\\'`) : undefined,
    tags === null
      ? undefined
      : correlated
        ? sql`EXISTS (SELECT 1 FROM contact_tags WHERE workspace_id = ${workspaceId} AND tag IN (${tags}) AND contact_id = ${contacts.id})`
        : sql`${contacts.id} IN (SELECT contact_id FROM contact_tags WHERE workspace_id = ${workspaceId} AND tag IN (${tags}))`,
    q.optedOut === undefined ? undefined : eq(contacts.optedOut, q.optedOut),
  )!;
}

/** A page of contacts, newest first, with the list's filters. */
export async function listContacts(db: DB, workspaceId: string, q: ContactFilter & { limit: number; offset: number }): Promise<{ rows: ContactRow[]; total: number }> {
  const where = filterWhere(db, workspaceId, q);
  const rows = await db.select().from(contacts).where(where).orderBy(desc(contacts.createdAt), desc(contacts.id)).limit(q.limit).offset(q.offset).all();
  return { rows, total: await listTotal(db, workspaceId, q, where) };
}

/**
 * The list's `total`: without a search or a tag filter, the workspace's kept counts (all, opted
 * out, opted in); else a count of the matching rows.
 */
async function listTotal(db: DB, workspaceId: string, q: ContactFilter, where: SQL): Promise<number> {
  if (!q.search && !q.tag?.length) {
    const c = await contactCounts(db, workspaceId);
    return q.optedOut === undefined ? c.total : q.optedOut ? c.optedOut : c.total - c.optedOut;
  }
  return (await db.select({ n: count() }).from(contacts).where(where).get())?.n ?? 0;
}

/** Where a keyset walk stands: the last contact read (its creation time and id); `null` before the first. */
export type ContactCursor = { createdAt: number; id: string } | null;

/**
 * The query of `contactsAfter`: in (createdAt, id) order, the order of contacts_ws_created_idx,
 * so each batch is one range read of that index (in id order the planner sorted the whole
 * workspace for every batch: an export of 100,000 contacts took 20 s). Its plans are tested.
 */
export function contactsAfterQuery(db: DB, workspaceId: string, q: ContactFilter, after: ContactCursor, limit: number) {
  return db
    .select()
    .from(contacts)
    .where(and(filterWhere(db, workspaceId, q, true), after ? sql`(${contacts.createdAt}, ${contacts.id}) > (${after.createdAt}, ${after.id})` : undefined))
    .orderBy(asc(contacts.createdAt), asc(contacts.id))
    .limit(limit);
}

/** The next `limit` contacts in (createdAt, id) order after `after` with the list's filters (keyset: the export). */
export async function contactsAfter(db: DB, workspaceId: string, q: ContactFilter, after: ContactCursor, limit: number): Promise<ContactRow[]> {
  return contactsAfterQuery(db, workspaceId, q, after, limit).all();
}

/** Every attribute key in use in the workspace, sorted (the export's columns). */
export async function attributeKeys(db: DB, workspaceId: string): Promise<string[]> {
  const rows = await db.all<{ key: string }>(sql`SELECT DISTINCT key FROM contact_attributes WHERE workspace_id = ${workspaceId} ORDER BY key`);
  return rows.map((r) => r.key);
}
