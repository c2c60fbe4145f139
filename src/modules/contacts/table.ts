import { index, integer, primaryKey, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../../db/lazy-table.ts";
import { workspaces } from "../workspaces/table.ts";

/** A person the workspace talks to, one per phone number. Times are unix ms. */
export const contacts = sqliteTable(
  "contacts",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** digits with country code, no plus */
    phone: text("phone").notNull(),
    /** name the workspace gave the contact */
    name: text("name"),
    /** name the contact gave themselves on the network (updated by inbound messages) */
    pushName: text("push_name"),
    /** the contact's view; `contact_tags` holds the same tags for indexed filters */
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default([]),
    /** the contact's view; `contact_attributes` holds the same pairs for indexed filters */
    attributes: text("attributes", { mode: "json" }).$type<Record<string, string>>().notNull().default({}),
    optedOut: integer("opted_out", { mode: "boolean" }).notNull().default(false),
    optedOutAt: integer("opted_out_at"),
    lastInboundAt: integer("last_inbound_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [
    uniqueIndex("contacts_phone_uq").on(t.workspaceId, t.phone),
    index("contacts_ws_created_idx").on(t.workspaceId, t.createdAt, t.id),
    // segments: opted-in contacts of a workspace in id order (counts and keyset reads stay in the index)
    index("contacts_ws_optin_idx").on(t.workspaceId, t.optedOut, t.id),
    index("contacts_ws_inbound_idx").on(t.workspaceId, t.optedOut, t.lastInboundAt),
  ],
);

/**
 * One row per (contact, tag), written in the same transaction as the contact's `tags` column.
 * The primary key is the covering index of "contacts with tag X".
 */
export const contactTags = sqliteTable(
  "contact_tags",
  () => ({
    workspaceId: text("workspace_id").notNull(),
    tag: text("tag").notNull(),
    contactId: text("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
  }),
  (t) => [primaryKey({ columns: [t.workspaceId, t.tag, t.contactId] }), index("contact_tags_contact_idx").on(t.contactId)],
);

/** One row per (contact, attribute), kept in sync with the contact's `attributes` column. */
export const contactAttributes = sqliteTable(
  "contact_attributes",
  () => ({
    workspaceId: text("workspace_id").notNull(),
    key: text("key").notNull(),
    value: text("value").notNull(),
    contactId: text("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
  }),
  (t) => [primaryKey({ columns: [t.workspaceId, t.key, t.value, t.contactId] }), index("contact_attributes_contact_idx").on(t.contactId)],
);

/** A CSV import (docs/contacts-and-campaigns.md): the job's state lives here, so a restart resumes where it stopped. */
export const contactImports = sqliteTable(
  "contact_imports",
  () => ({
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["queued", "running", "completed", "failed"] }).notNull(),
    /** the stored upload, relative to the data dir; removed when the import ends */
    filePath: text("file_path").notNull(),
    filename: text("filename"),
    /** data rows in the file (counted before the first row is applied); null until then */
    total: integer("total"),
    /** data rows handled (applied or rejected), committed with their changes */
    processed: integer("processed").notNull().default(0),
    created: integer("created").notNull().default(0),
    updated: integer("updated").notNull().default(0),
    rejected: integer("rejected").notNull().default(0),
    /** why the whole import failed (unreadable file, bad header) */
    error: text("error"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    completedAt: integer("completed_at"),
  }),
  (t) => [index("contact_imports_ws_idx").on(t.workspaceId, t.createdAt)],
);

/** The first 1,000 rejected rows of an import. */
export const contactImportErrors = sqliteTable(
  "contact_import_errors",
  () => ({
    importId: text("import_id")
      .notNull()
      .references(() => contactImports.id, { onDelete: "cascade" }),
    row: integer("row").notNull(),
    message: text("message").notNull(),
  }),
  (t) => [primaryKey({ columns: [t.importId, t.row] })],
);
