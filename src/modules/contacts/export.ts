import type { AppDeps } from "../../deps.ts";
import type { ContactFilter } from "./model.ts";
import { attributeKeys, contactsAfter, type ContactCursor } from "./repo.ts";
import { giveWay, sliceDone } from "../../yield.ts";

/** Contacts per pull: read and written as CSV in a few ms (the CSV of a row costs about as much as its read). */
export const EXPORT_BATCH = 200;

/**
 * OWASP CSV injection: a spreadsheet runs a cell that starts with = + - @ (or a tab or carriage
 * return before one) as a formula. Such a cell is written with a leading `'`, which the
 * spreadsheet shows as text; the import drops that one quote again (import-row.ts), so an export
 * imports back unchanged. A value that itself starts with quotes before such a character
 * (`'=keep`) gets one more, so the import gives back exactly its own.
 */
export function neutralizeCell(value: string): string {
  return /^'*[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/**
 * A contact's tags in one cell, `;` between them. A `;`, `|` or `\` inside a tag is written
 * with a `\` before it, which the import reads back (import-row.ts `splitTags`): a tag with
 * a separator in it stays one tag.
 */
export function joinTags(tags: readonly string[]): string {
  return tags.map((t) => t.replace(/[\\;|]/g, "\\$&")).join(";");
}

/**
 * The workspace's contacts matching the list's filters as CSV (the columns of docs/contacts-and-campaigns.md, then one per
 * attribute key in use in the workspace), streamed: each pull reads the next keyset batch,
 * so memory stays flat whatever the number of contacts. Each pull first gives the event loop a
 * turn: the stream asks for the next batch as soon as the last is taken, and on SQLite the read
 * resolves at once, so without it the whole export would run as one block of microtasks.
 */
export async function exportContacts(deps: Pick<AppDeps, "db">, workspaceId: string, filter: ContactFilter): Promise<ReadableStream<Uint8Array>> {
  // required with the first export rather than imported: not loaded at start (cold start, issue 13)
  const { stringify } = require("csv-stringify/sync") as typeof import("csv-stringify/sync");
  const keys = await attributeKeys(deps.db, workspaceId);
  const encoder = new TextEncoder();
  let after: ContactCursor = null;
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(stringify([["phone", "name", "tags", "optedOut", "createdAt", ...keys]])));
        return;
      }
      await giveWay();
      const rows = await contactsAfter(deps.db, workspaceId, filter, after, EXPORT_BATCH);
      sliceDone("contacts.export", rows.length);
      if (!rows.length) return controller.close();
      const last = rows[rows.length - 1]!;
      after = { createdAt: last.createdAt, id: last.id };
      const records = rows.map((c) => [
        c.phone,
        neutralizeCell(c.name ?? ""),
        neutralizeCell(joinTags(c.tags)),
        c.optedOut ? "true" : "false",
        new Date(c.createdAt).toISOString(),
        // own keys only: a key named like an Object method (constructor, toString) is just a key
        ...keys.map((k) => neutralizeCell(Object.hasOwn(c.attributes, k) ? String(c.attributes[k]) : "")),
      ]);
      controller.enqueue(encoder.encode(stringify(records)));
      if (rows.length < EXPORT_BATCH) controller.close();
    },
  });
}
