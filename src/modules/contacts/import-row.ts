// One CSV row of an import, checked alone (docs/contacts-and-campaigns.md): pure functions, no database.
import { isPossiblePhone, isValidPhone, normalisePhone, understoodAs } from "../../http/phone.ts";
import { ATTRIBUTE_KEY, ATTRIBUTE_KEY_MESSAGE, MAX_ATTRIBUTE_VALUE, MAX_ATTRIBUTES, MAX_NAME, MAX_TAGS } from "./fields.ts";
import type { StoredContact } from "./store.ts";

/** Where each known column is, and which columns are attributes. */
export interface ImportHeader {
  width: number;
  phone: number;
  name: number | null;
  tags: number | null;
  optedOut: number | null;
  attributes: { index: number; key: string }[];
}

/** A valid row: what it sets (undefined: the row leaves it as it is). */
export interface ImportRow {
  phone: string;
  name?: string;
  tags: string[];
  optedOut?: boolean;
  attributes: Record<string, string>;
}

// a Map: a column named `constructor` or `__proto__` is not one of these (an object literal would find them on its prototype)
const KNOWN = new Map<string, "phone" | "name" | "tags" | "optedOut">([
  ["phone", "phone"],
  ["name", "name"],
  ["tags", "tags"],
  ["optedout", "optedOut"],
  ["opted_out", "optedOut"],
]);
/** Columns of Parley's own export that are not contact input: skipped, so an export imports back cleanly. */
const SKIPPED = new Set(["createdat"]);

/** Reads the header row; throws an Error whose message says what is wrong with the file. */
export function readHeader(cells: string[]): ImportHeader {
  const h: ImportHeader = { width: cells.length, phone: -1, name: null, tags: null, optedOut: null, attributes: [] };
  const seen = new Set<string>();
  cells.forEach((raw, index) => {
    const cell = raw.trim();
    if (!cell) throw new Error(`header: column ${index + 1} has no name`);
    if (SKIPPED.has(cell.toLowerCase())) return;
    const known = KNOWN.get(cell.toLowerCase());
    const id = known ?? cell;
    if (seen.has(id)) throw new Error(`header: column "${cell}" appears twice`);
    seen.add(id);
    if (known === "phone") h.phone = index;
    else if (known) h[known] = index;
    else if (!ATTRIBUTE_KEY.test(cell)) throw new Error(`header: column "${cell.slice(0, 60)}" is not a valid attribute name (${ATTRIBUTE_KEY_MESSAGE})`);
    else h.attributes.push({ index, key: cell });
  });
  if (h.phone < 0) throw new Error('header: a "phone" column is required');
  if (h.attributes.length > MAX_ATTRIBUTES) throw new Error(`header: at most ${MAX_ATTRIBUTES} attribute columns`);
  return h;
}

const TRUE = new Set(["true", "yes", "y", "1"]);
const FALSE = new Set(["false", "no", "n", "0"]);

/** Checks one data row; returns the row or the message of the first problem. */
export function readRow(h: ImportHeader, cells: string[]): ImportRow | string {
  // trailing empty fields (a spreadsheet's extra delimiters) are harmless; extra values are not
  if (cells.length > h.width && cells.slice(h.width).some((c) => c.trim())) return `has ${cells.length} fields, the header has ${h.width}`;
  // the `'` our export puts before a formula-like cell (CSV injection) is not part of the value
  // (one quote: `''=x` is the export of a value that was `'=x`)
  const raw = (i: number | null) => (i === null ? "" : (cells[i] ?? "").replace(/^'(?='*[=+\-@\t\r])/, ""));
  const cell = (i: number | null) => raw(i).trim();
  const phone = normalisePhone(cell(h.phone));
  if (!phone) return "phone: is required";
  if (!/^\d{8,15}$/.test(phone)) return "phone: must be 8 to 15 digits with the country code";
  if (!isPossiblePhone(phone)) return "phone: is not a possible phone number for its country code";
  if (!isValidPhone(phone)) return `phone: is not a valid number: understood as ${understoodAs(phone)}`;
  const row: ImportRow = { phone, tags: [], attributes: Object.create(null) as Record<string, string> };
  const name = cell(h.name);
  if (name.length > MAX_NAME) return `name: must be at most ${MAX_NAME} characters`;
  if (name) row.name = name;
  const tags = new Set<string>();
  for (const part of splitTags(cell(h.tags))) {
    const tag = part.trim().toLowerCase();
    if (!tag) continue;
    if (tag.length > 40) return `tags: "${tag.slice(0, 40)}…" is longer than 40 characters`;
    tags.add(tag);
  }
  if (tags.size > MAX_TAGS) return `tags: at most ${MAX_TAGS}`;
  row.tags = [...tags];
  const opted = cell(h.optedOut).toLowerCase();
  if (opted) {
    if (TRUE.has(opted)) row.optedOut = true;
    else if (FALSE.has(opted)) row.optedOut = false;
    else return "optedOut: must be true or false (or yes/no, 1/0)";
  }
  for (const { index, key } of h.attributes) {
    // as given, spaces and all: the API keeps an attribute's spaces, and an export imports back unchanged
    const value = raw(index);
    if (!value.trim()) continue; // an empty cell sets nothing
    if (value.length > MAX_ATTRIBUTE_VALUE) return `${key}: must be at most ${MAX_ATTRIBUTE_VALUE} characters`;
    row.attributes[key] = value;
  }
  return row;
}

/**
 * The merge of a row into an existing contact: a given name replaces, tags are added,
 * attributes are set key by key, and optedOut can only turn on (an import never clears it).
 * Returns the new state or a message when the result breaks a limit.
 */
export function mergeRow(before: StoredContact, row: ImportRow): Omit<StoredContact, "id" | "optedOutAt"> | string {
  const tags = [...new Set([...before.tags, ...row.tags])];
  if (tags.length > MAX_TAGS) return `tags: the contact would have more than ${MAX_TAGS}`;
  const attributes = { ...before.attributes, ...row.attributes };
  if (Object.keys(attributes).length > MAX_ATTRIBUTES) return `attributes: the contact would have more than ${MAX_ATTRIBUTES}`;
  return { name: row.name ?? before.name, tags, attributes, optedOut: before.optedOut || row.optedOut === true };
}

/** Picks the delimiter of a CSV from its first line: `;` when it has more of them than commas (outside quotes). */
export function detectDelimiter(firstLine: string): "," | ";" {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const ch of firstLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === ",") commas++;
    else if (!quoted && ch === ";") semicolons++;
  }
  return semicolons > commas ? ";" : ",";
}

/**
 * The tags of a cell: split at `;` or `|`, except one with a `\` before it (the export writes
 * `\;`, `\|` and `\\` for those characters inside a tag). A `\` before anything else is kept.
 */
export function splitTags(cell: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < cell.length; i++) {
    const ch = cell[i]!;
    const next = cell[i + 1];
    if (ch === "\\" && (next === ";" || next === "|" || next === "\\")) {
      cur += next;
      i++;
    } else if (ch === ";" || ch === "|") {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}
