import { and, count, desc, eq, or, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
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

/** Inserts a new contact. */
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

/** A page of contacts, newest first, optionally matching a search on phone or names. */
export function listContacts(db: DB, workspaceId: string, q: { search?: string; limit: number; offset: number }): { rows: ContactRow[]; total: number } {
  const term = q.search ? `%${q.search.replace(/[%_\\]/g, (c) => "\\" + c)}%` : null;
  const where = and(
    eq(contacts.workspaceId, workspaceId),
    term ? or(sql`${contacts.phone} LIKE ${term} ESCAPE '\\'`, sql`${contacts.name} LIKE ${term} ESCAPE '\\'`, sql`${contacts.pushName} LIKE ${term} ESCAPE '\\'`) : undefined,
  );
  const rows = db.select().from(contacts).where(where).orderBy(desc(contacts.createdAt), desc(contacts.id)).limit(q.limit).offset(q.offset).all();
  const total = db.select({ n: count() }).from(contacts).where(where).get()?.n ?? 0;
  return { rows, total };
}

