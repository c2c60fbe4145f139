import type { Database, Statement } from "bun:sqlite";

// Contact writes that keep the filter tables (contact_tags, contact_attributes) equal to the
// contact's JSON columns. Call inside the caller's transaction: the row and its index rows
// commit together. Prepared once per connection: the import writes one contact per row.

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

interface Stmts {
  byPhone: Statement;
  insert: Statement;
  update: Statement;
  dropTags: Statement;
  addTag: Statement;
  dropAttrs: Statement;
  addAttr: Statement;
  count: Statement;
}

const cache = new WeakMap<Database, Stmts>();

function stmts(sqlite: Database): Stmts {
  let s = cache.get(sqlite);
  if (!s) {
    s = {
      byPhone: sqlite.prepare(
        "SELECT id, name, tags, attributes, opted_out AS optedOut, opted_out_at AS optedOutAt FROM contacts WHERE workspace_id = ? AND phone = ?",
      ),
      insert: sqlite.prepare(
        `INSERT INTO contacts (id, workspace_id, phone, name, push_name, tags, attributes, opted_out, opted_out_at, last_inbound_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      update: sqlite.prepare(
        "UPDATE contacts SET name = ?, tags = ?, attributes = ?, opted_out = ?, opted_out_at = ?, updated_at = ? WHERE workspace_id = ? AND id = ?",
      ),
      dropTags: sqlite.prepare("DELETE FROM contact_tags WHERE contact_id = ?"),
      addTag: sqlite.prepare("INSERT OR IGNORE INTO contact_tags (workspace_id, tag, contact_id) VALUES (?, ?, ?)"),
      dropAttrs: sqlite.prepare("DELETE FROM contact_attributes WHERE contact_id = ?"),
      addAttr: sqlite.prepare("INSERT OR IGNORE INTO contact_attributes (workspace_id, key, value, contact_id) VALUES (?, ?, ?, ?)"),
      count: sqlite.prepare("SELECT count(*) AS n FROM contacts WHERE workspace_id = ?"),
    };
    cache.set(sqlite, s);
  }
  return s;
}

/** The contact of a phone number with the fields a merge needs, or null. */
export function storedByPhone(sqlite: Database, workspaceId: string, phone: string): StoredContact | null {
  const r = stmts(sqlite).byPhone.get(workspaceId, phone) as (Omit<StoredContact, "tags" | "attributes" | "optedOut"> & { tags: string; attributes: string; optedOut: number }) | null;
  if (!r) return null;
  return { ...r, tags: JSON.parse(r.tags), attributes: JSON.parse(r.attributes), optedOut: r.optedOut === 1 };
}

/** How many contacts the workspace has (the `contacts` quota). */
export function contactCount(sqlite: Database, workspaceId: string): number {
  return (stmts(sqlite).count.get(workspaceId) as { n: number }).n;
}

function writeIndex(s: Stmts, workspaceId: string, id: string, tags: string[] | null, attributes: Record<string, string> | null): void {
  if (tags) {
    s.dropTags.run(id);
    for (const t of tags) s.addTag.run(workspaceId, t, id);
  }
  if (attributes) {
    s.dropAttrs.run(id);
    for (const [k, v] of Object.entries(attributes)) s.addAttr.run(workspaceId, k, v, id);
  }
}

/** Inserts a contact and its tag and attribute rows. Throws on a duplicate phone (unique index). */
export function insertStoredContact(sqlite: Database, workspaceId: string, c: NewContact): void {
  const s = stmts(sqlite);
  s.insert.run(
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
  writeIndex(s, workspaceId, c.id, c.tags, c.attributes);
}

/**
 * Writes the new state of a contact; the index rows are rewritten only for the parts that
 * changed. `optedOutAt` follows `optedOut`: set when it turns true, cleared when false.
 */
export function updateStoredContact(sqlite: Database, workspaceId: string, before: StoredContact, after: Omit<StoredContact, "id" | "optedOutAt">, at: number): void {
  const s = stmts(sqlite);
  const optedOutAt = after.optedOut ? (before.optedOut ? before.optedOutAt : at) : null;
  s.update.run(after.name, JSON.stringify(after.tags), JSON.stringify(after.attributes), after.optedOut ? 1 : 0, optedOutAt, at, workspaceId, before.id);
  const tagsChanged = JSON.stringify(before.tags) !== JSON.stringify(after.tags);
  const attrsChanged = JSON.stringify(before.attributes) !== JSON.stringify(after.attributes);
  writeIndex(s, workspaceId, before.id, tagsChanged ? after.tags : null, attrsChanged ? after.attributes : null);
}
