import type { Options } from "csv-parse";
import { createReadStream, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AppDeps } from "../../deps.ts";
import type { JobHandler } from "../../jobs/queue.ts";
import { isWriteFailure } from "../../ops/write-health.ts";
import { effectiveLimits } from "../billing/quota.ts";
import { countImportErrors, findImport, finishImport, importProcessed, MAX_IMPORT_ERRORS, recordBatch, startImport, type ImportRowState } from "./import-repo.ts";
import { detectDelimiter, mergeRow, readHeader, readRow, type ImportHeader } from "./import-row.ts";
import { contactCount, insertStoredContact, storedByPhone, updateStoredContact } from "./store.ts";
import { giveWay, sliceBudget, sliceDone } from "../../yield.ts";

export const IMPORT_JOB = "contacts.import";
/** Rows read before they are applied; a transaction applies as many of them as fit in one slice of time. */
const BATCH = 500;
/** The longest record csv-parse may buffer (characters). */
const MAX_RECORD_BYTES = 1024 * 1024;

type Deps = Pick<AppDeps, "db" | "clock" | "log" | "config">;
interface Payload {
  workspaceId: string;
  importId: string;
}

/** A problem with the file itself (not one row): the import fails with this message. */
class FileProblem extends Error {}

/** Another run of the same import got further (this one's lease ran out while it worked): this run stops. */
class OvertakenRun extends Error {}

const parserOptions = (delimiter: string): Options => ({
  delimiter,
  bom: true,
  relax_column_count: true, // a short or long row is that row's problem, not the file's
  skip_empty_lines: true,
  // one record is held whole while parsed: a line (or an unclosed quote) this long ends the
  // import instead of growing memory with the file (a good row is a few tens of KB at most)
  max_record_size: MAX_RECORD_BYTES,
});

/** csv-parse, loaded with the first import rather than at start (cold start, issue 13). */
const csvParse = () => import("csv-parse");

async function sniffDelimiter(path: string): Promise<"," | ";"> {
  const bytes = new Uint8Array(await Bun.file(path).slice(0, 64 * 1024).arrayBuffer());
  const nul = bytes.indexOf(0);
  // NUL bytes are no text a spreadsheet writes: a binary file (a zip, an image, a gzipped CSV)
  if (nul >= 0) throw new FileProblem(`the file is not CSV text: it holds binary bytes (a NUL at byte ${nul + 1}); export it from the spreadsheet as CSV`);
  const head = new TextDecoder().decode(bytes);
  return detectDelimiter(head.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0] ?? "");
}

/**
 * Bytes read from the file at a time: csv-parse turns a whole chunk into records in one go, and
 * the default 64 KiB is a few thousand rows, a block of tens of ms on a loaded machine.
 */
const CHUNK = 8 * 1024;

/** Data records in the file (a streaming pass; the header is not counted). */
async function countRows(path: string, delimiter: string): Promise<number> {
  const { parse } = await csvParse();
  let n = 0;
  try {
    for await (const _ of createReadStream(path, { highWaterMark: CHUNK }).pipe(parse(parserOptions(delimiter)))) {
      // records already parsed come as microtasks: give way now and then, or a big file holds the loop
      if (++n % 250 === 0) await giveWay();
    }
  } catch {
    // an unreadable line: the rows before it are what the import will handle (it fails there)
  }
  return Math.max(0, n - 1);
}

/** csv-parse's own error: the file's fault (a misplaced quote, binary bytes, an overlong line), never worth a retry. */
function isCsvError(err: unknown): boolean {
  const e = err as { name?: string; code?: unknown; constructor?: { name?: string } } | null;
  return !!e && typeof e.code === "string" && (e.constructor?.name === "CsvError" || e.code.startsWith("CSV_") || /^(INVALID|UNCLOSED|QUOTE|CSV)_/.test(e.code));
}

/** Where the parser stopped, as the file's line and column (1-based), and why. */
const csvMessage = (err: unknown) => {
  const e = err as { message?: string; lines?: number; index?: number };
  const at = e.lines ? `line ${e.lines}${typeof e.index === "number" ? `, column ${e.index + 1}` : ""}: ` : "";
  return at + (e.message ?? String(err));
};

/**
 * Applies one batch in one write transaction: contacts created or merged, rows rejected, and
 * the import's counters and errors, so a kill between batches loses nothing and repeats
 * nothing (the next run skips `processed` rows). The quota count and the inserts it allows
 * are in the same transaction, so a concurrent create cannot take the same places; and the
 * batch applies only if `processed` still ends where it begins, so two runs of one import
 * (a lease that ran out) never apply a row twice. The transaction stops after the row that used
 * up its slice of time (the rest go to the next one), so no transaction holds the event loop
 * long. Returns the rows applied and the errors kept.
 */
async function applyBatch(deps: Deps, imp: ImportRowState, header: ImportHeader, batch: { row: number; cells: string[] }[], keptErrors: number): Promise<{ applied: number; errors: number }> {
  const ws = imp.workspaceId;
  const at = deps.clock.now().getTime();
  const counts = { processed: 0, created: 0, updated: 0, rejected: 0, errors: [] as { row: number; message: string }[] };
  const reject = (row: number, message: string) => {
    counts.rejected++;
    if (keptErrors + counts.errors.length < MAX_IMPORT_ERRORS) counts.errors.push({ row, message });
  };
  await deps.db.tx(async () => {
    // rows before the batch's first: its row number less the header and the row itself
    if ((await importProcessed(deps.db, ws, imp.id)) !== batch[0]!.row - 2) throw new OvertakenRun();
    const limit = (await effectiveLimits(deps, ws)).contacts;
    let used = await contactCount(deps.db, ws);
    // the quota's count is one kept row (not a count of the workspace), so a slice is the usual few ms
    const budget = sliceBudget(deps.db.engine, { atLeast: 10 });
    for (const { row, cells } of batch) {
      if (budget.spent(counts.processed)) break;
      counts.processed++;
      const parsed = readRow(header, cells);
      if (typeof parsed === "string") {
        reject(row, parsed);
        continue;
      }
      const before = await storedByPhone(deps.db, ws, parsed.phone);
      if (before) {
        const after = mergeRow(before, parsed);
        if (typeof after === "string") {
          reject(row, after);
          continue;
        }
        const same = after.name === before.name && after.optedOut === before.optedOut && JSON.stringify(after.tags) === JSON.stringify(before.tags) && JSON.stringify(after.attributes) === JSON.stringify(before.attributes);
        if (!same) await updateStoredContact(deps.db, ws, before, after, at);
        counts.updated++;
        continue;
      }
      if (used >= limit) {
        reject(row, `contacts quota reached (${limit} on the current plan): not created`);
        continue;
      }
      await insertStoredContact(deps.db, ws, {
        id: Bun.randomUUIDv7(),
        phone: parsed.phone,
        name: parsed.name ?? null,
        pushName: null,
        tags: parsed.tags,
        attributes: parsed.attributes,
        optedOut: parsed.optedOut === true,
        lastInboundAt: null,
        at,
      });
      used++;
      counts.created++;
    }
    await recordBatch(deps.db, ws, imp.id, counts, at);
    sliceDone("contacts.import", counts.processed);
  });
  return { applied: counts.processed, errors: counts.errors.length };
}

/** Applies every row of `batch`, a slice of time per transaction, giving way between them; returns the errors kept. */
async function applyAll(deps: Deps, imp: ImportRowState, header: ImportHeader, batch: { row: number; cells: string[] }[], keptErrors: number): Promise<number> {
  let kept = 0;
  for (let rest = batch; rest.length; ) {
    const r = await applyBatch(deps, imp, header, rest, keptErrors + kept);
    kept += r.errors;
    rest = rest.slice(r.applied);
    await giveWay(); // let requests in between transactions
  }
  return kept;
}

/** Streams the file through csv-parse and applies the rows after `imp.processed`, a batch at a time. */
async function applyFile(deps: Deps, imp: ImportRowState, path: string, delimiter: string): Promise<void> {
  let header: ImportHeader | null = null;
  let dataNo = 0;
  let keptErrors = await countImportErrors(deps.db, imp.id);
  let batch: { row: number; cells: string[] }[] = [];
  const { parse } = await csvParse();
  const parser = createReadStream(path, { highWaterMark: CHUNK }).pipe(parse(parserOptions(delimiter)));
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      if (!header) {
        try {
          header = readHeader(cells);
        } catch (err) {
          throw new FileProblem((err as Error).message);
        }
        continue;
      }
      dataNo++;
      if (dataNo <= imp.processed) continue; // applied by an earlier run
      batch.push({ row: dataNo + 1, cells }); // the header is row 1
      if (batch.length >= BATCH) {
        keptErrors += await applyAll(deps, imp, header, batch, keptErrors);
        batch = [];
      }
    }
  } catch (err) {
    if (err instanceof FileProblem) throw err;
    if (isCsvError(err)) {
      // the rows read before the unreadable line are kept, like the batches before them
      if (header && batch.length) await applyAll(deps, imp, header, batch, keptErrors);
      throw new FileProblem(csvMessage(err));
    }
    throw err;
  }
  if (!header) throw new FileProblem("the file is empty: a header row with a phone column is required");
  if (batch.length) await applyAll(deps, imp, header, batch, keptErrors);
}

/** The durable job that runs an import; safe to run again after a crash at any point. */
export function importJob(deps: Deps): JobHandler<Payload> {
  return {
    kind: IMPORT_JOB,
    maxAttempts: 5,
    async run({ workspaceId, importId }, ctx) {
      const imp = await findImport(deps.db, workspaceId, importId);
      if (!imp || imp.status === "completed" || imp.status === "failed") return;
      const path = join(deps.config.dataDir, imp.filePath);
      const now = () => deps.clock.now().getTime();
      const end = async (status: "completed" | "failed", error?: string) => {
        await finishImport(deps.db, workspaceId, importId, { status, error }, now());
        rmSync(path, { force: true });
      };
      if (!existsSync(path)) return end("failed", "the uploaded file is no longer there");
      try {
        const delimiter = await sniffDelimiter(path);
        if (imp.total === null || imp.status === "queued") {
          const total = imp.total ?? (await countRows(path, delimiter).catch(() => 0));
          await startImport(deps.db, workspaceId, importId, total, now());
          imp.total = total;
        }
        await applyFile(deps, imp, path, delimiter);
        await end("completed");
        deps.log.info("contacts import completed", { workspaceId, importId });
      } catch (err) {
        if (err instanceof FileProblem) return end("failed", err.message);
        if (err instanceof OvertakenRun) return deps.log.warn("contacts import run stopped: another run of it is ahead", { workspaceId, importId });
        // a full disk is not the file's fault: the job tries again (the queue backs off) and goes on
        // from the rows already applied once space returns, however long that takes
        if (ctx.attempt >= ctx.maxAttempts && !isWriteFailure(err)) await end("failed", "the import stopped on an internal error");
        throw err;
      }
    },
  };
}
