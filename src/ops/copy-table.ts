import type { TableShape } from "../schema/table-order.ts";
import type { DB, SqlParam } from "../db/store.ts";

/** PostgreSQL takes at most this many parameters in one statement. */
const MAX_PARAMS = 65_535;

type Row = Record<string, SqlParam>;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Copies one table's rows from `from` into `to`, in rowid order, `batchRows` rows per
 * multi-row INSERT (fewer for a wide table, under PostgreSQL's parameter limit). Values go as
 * they are: both engines store integers, 0/1 booleans and JSON text alike. `keep` leaves rows
 * out. Runs inside the caller's transactions; returns the rows written.
 */
export async function copyTable(from: DB, to: DB, table: TableShape, batchRows: number, keep: (row: Row) => boolean = () => true): Promise<number> {
  const cols = table.columns.map(quote).join(", ");
  const select = `SELECT rowid AS "rowid_", ${cols} FROM ${quote(table.name)}`;
  const first = from.prepare<Row>(`${select} ORDER BY rowid LIMIT ?`);
  const next = from.prepare<Row>(`${select} WHERE rowid > ? ORDER BY rowid LIMIT ?`);
  const perBatch = Math.max(1, Math.min(batchRows, Math.floor(MAX_PARAMS / table.columns.length)));
  const placeholders = `(${table.columns.map(() => "?").join(", ")})`;
  const insert = (n: number) => to.prepare(`INSERT INTO ${quote(table.name)} (${cols}) VALUES ${Array.from({ length: n }, () => placeholders).join(", ")}`);

  let written = 0;
  let last: number | null = null;
  for (;;) {
    const rows: Row[] = last === null ? await first.all(perBatch) : await next.all(last, perBatch);
    if (!rows.length) break;
    last = rows.at(-1)!.rowid_ as number;
    const kept = rows.filter(keep);
    if (kept.length) {
      const params: SqlParam[] = [];
      for (const row of kept) for (const c of table.columns) params.push(row[c] ?? null);
      await insert(kept.length).run(...params);
      written += kept.length;
    }
    if (rows.length < perBatch) break;
  }
  return written;
}

/** `SELECT count(*)` of a table, as a number on either engine. */
export async function countRows(db: DB, table: string): Promise<number> {
  const row = await db.prepare<{ n: number | string }>(`SELECT count(*) AS n FROM ${quote(table)}`).get();
  return Number(row?.n ?? 0);
}

/** Deletes every row of a table; returns how many there were. */
export async function clearTable(db: DB, table: string): Promise<number> {
  return (await db.prepare(`DELETE FROM ${quote(table)}`).run()).changes;
}
