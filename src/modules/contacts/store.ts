import type { DB } from "../../db/store.ts";

export { contactCount, contactCounts } from "./counts-repo.ts";

// Contact writes that keep the filter tables (contact_tags, contact_attributes) equal to the
// contact's JSON columns. Call inside the caller's transaction: the row and its index rows
// commit together. Prepared once per store: the import writes one contact per row.

/** The stored state of a contact that writes start from. */
export interface StoredContact {
  id: string;
  name: string | null;
  tags: string[];
  attributes: Record<string, string>;
  optedOut: boolean;
  optedOutAt: number | null;
}

export interface NewContact {
  id: string;
  phone: string;
  name: string | null;
  pushName: string | null;
  tags: string[];
  attributes: Record<string, string>;
  optedOut: boolean;
  lastInboundAt: number | null;
  at: number;
}

const SQL = {
  byPhone: 'SELECT id, name, tags, attributes, opted_out AS "optedOut", opted_out_at AS "optedOutAt" FROM contacts WHERE workspace_id = ? AND phone = ?',
  insert: `INSERT INTO contacts (id, workspace_id, phone, name, push_name, tags, attributes, opted_out, opted_out_at, last_inbound_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  update: "UPDATE contacts SET name = ?, tags = ?, attributes = ?, opted_out = ?, opted_out_at = ?, updated_at = ? WHERE workspace_id = ? AND id = ?",
  dropTags: "DELETE FROM contact_tags WHERE contact_id = ?",
  dropAttrs: "DELETE FROM contact_attributes WHERE contact_id = ?",
  // kept in step with the contacts by triggers (migrations: contact_counts)
};

// one statement for all of a contact's tags (or attributes): one round trip on PostgreSQL; at
// most MAX_TAGS (MAX_ATTRIBUTES) shapes, so each is prepared once
const rows = (n: number, width: number) => Array.from({ length: n }, () => `(${Array(width).fill("?").join(", ")})`).join(", ");
const shapes = (build: (n: number) => string) => {
  const made: string[] = [];
  return (n: number) => (made[n] ??= build(n));
};
const addTags = shapes((n) => `INSERT INTO contact_tags (workspace_id, tag, contact_id) VALUES ${rows(n, 3)} ON CONFLICT DO NOTHING`);
const addAttrs = shapes((n) => `INSERT INTO contact_attributes (workspace_id, key, value, contact_id) VALUES ${rows(n, 4)} ON CONFLICT DO NOTHING`);

/** The contact of a phone number with the fields a merge needs, or null. */
export async function storedByPhone(db: DB, workspaceId: string, phone: string): Promise<StoredContact | null> {
  const r = await db.prepare<Omit<StoredContact, "tags" | "attributes" | "optedOut"> & { tags: string; attributes: string; optedOut: number }>(SQL.byPhone).get(workspaceId, phone);
  if (!r) return null;
  return { ...r, tags: JSON.parse(r.tags), attributes: JSON.parse(r.attributes), optedOut: r.optedOut === 1 };
}

/** Rewrites the given parts of a contact's index rows (`fresh`: a new contact has none to drop). */
async function writeIndex(db: DB, workspaceId: string, id: string, tags: string[] | null, attributes: Record<string, string> | null, fresh = false): Promise<void> {
  if (tags) {
    if (!fresh) await db.prepare(SQL.dropTags).run(id);
    if (tags.length) await db.prepare(addTags(tags.length)).run(...tags.flatMap((t) => [workspaceId, t, id]));
  }
  if (attributes) {
    if (!fresh) await db.prepare(SQL.dropAttrs).run(id);
    const pairs = Object.entries(attributes);
    if (pairs.length) await db.prepare(addAttrs(pairs.length)).run(...pairs.flatMap(([k, v]) => [workspaceId, k, v, id]));
  }
}

/** Inserts a contact and its tag and attribute rows. Throws on a duplicate phone (unique index). */
export async function insertStoredContact(db: DB, workspaceId: string, c: NewContact): Promise<void> {
  await db.prepare(SQL.insert).run(
    c.id,
    workspaceId,
    c.phone,
    c.name,
    c.pushName,
    JSON.stringify(c.tags),
    JSON.stringify(c.attributes),
    c.optedOut ? 1 : 0,
    c.optedOut ? c.at : null,
    c.lastInboundAt,
    c.at,
    c.at,
  );
  await writeIndex(db, workspaceId, c.id, c.tags, c.attributes, true);
}

/**
 * Writes the new state of a contact; the index rows are rewritten only for the parts that
 * changed. `optedOutAt` follows `optedOut`: set when it turns true, cleared when false.
 */
export async function updateStoredContact(db: DB, workspaceId: string, before: StoredContact, after: Omit<StoredContact, "id" | "optedOutAt">, at: number): Promise<void> {
  const optedOutAt = after.optedOut ? (before.optedOut ? before.optedOutAt : at) : null;
  await db.prepare(SQL.update).run(after.name, JSON.stringify(after.tags), JSON.stringify(after.attributes), after.optedOut ? 1 : 0, optedOutAt, at, workspaceId, before.id);
  const tagsChanged = JSON.stringify(before.tags) !== JSON.stringify(after.tags);
  const attrsChanged = JSON.stringify(before.attributes) !== JSON.stringify(after.attributes);
  await writeIndex(db, workspaceId, before.id, tagsChanged ? after.tags : null, attrsChanged ? after.attributes : null);
}
