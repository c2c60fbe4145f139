import { quietOnBrokenPipe } from "../src/node/tty.ts";
import { existsSync, statSync } from "node:fs";
import { basename } from "node:path";
import { FreshToken } from "./fresh-token.ts";
import { OperatorError, callApi, openOperator, ownerToken, requireApi, type Operator, type OperatorFlags } from "./operator.ts";
import { findWorkspace } from "./sessions.ts";

// `parley contacts import`: uploads a CSV to the running server as the workspace's owner (docs/operations.md:
// the power comes from the data dir) and follows the import job with a progress bar.

interface ImportReport {
  id: string;
  status: "queued" | "running" | "completed" | "failed";
  total: number | null;
  processed: number;
  created: number;
  updated: number;
  rejected: number;
  error: string | null;
  errors: { row: number; message: string }[];
}

const BAR_WIDTH = 30;

/** `[█████░░░░░]  45% 90,000/200,000` (no total yet: the rows seen so far). */
export function progressLine(r: Pick<ImportReport, "total" | "processed">): string {
  const n = (x: number) => x.toLocaleString("en");
  if (!r.total) return `[${"░".repeat(BAR_WIDTH)}] ${n(r.processed)} rows`;
  const share = Math.min(1, r.processed / r.total);
  const full = Math.round(share * BAR_WIDTH);
  return `[${"█".repeat(full)}${"░".repeat(BAR_WIDTH - full)}] ${String(Math.floor(share * 100)).padStart(3)}% ${n(r.processed)}/${n(r.total)}`;
}

/** The lines printed when the import ends. */
export function summaryLines(r: ImportReport, shown = 10): string[] {
  const n = (x: number) => x.toLocaleString("en");
  const lines = [
    r.status === "completed"
      ? `Import ${r.id} completed: ${n(r.processed)} rows, ${n(r.created)} created, ${n(r.updated)} updated, ${n(r.rejected)} rejected`
      : `Import ${r.id} failed after ${n(r.processed)} rows: ${r.error ?? "unknown error"}`,
  ];
  for (const e of r.errors.slice(0, shown)) lines.push(`  row ${e.row}: ${e.message}`);
  const more = r.rejected - Math.min(shown, r.errors.length);
  if (more > 0) lines.push(`  ... and ${n(more)} more rejected rows (GET /api/v1/contacts/imports/${r.id} lists the first 1,000)`);
  return lines;
}

type Ink = typeof import("ink");
const importScreen = ({ Box, Text }: Ink) =>
  function ImportScreen({ file, r }: { file: string; r: ImportReport }) {
    return (
      <Box flexDirection="column">
        <Text bold>
          Importing {file} ({r.status})
        </Text>
        <Text color="cyan">{progressLine(r)}</Text>
        <Text>
          created {r.created.toLocaleString("en")} · updated {r.updated.toLocaleString("en")} · rejected {r.rejected.toLocaleString("en")}
        </Text>
      </Box>
    );
  };

async function upload(op: Operator, token: string, path: string): Promise<string> {
  const form = new FormData();
  form.append("file", Bun.file(path), basename(path));
  let res: Response;
  try {
    res = await fetch(`${op.url}/api/v1/contacts/import`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  } catch (err) {
    throw new OperatorError(`cannot reach the server at ${op.url} (${(err as Error).message}); is it running? (--url)`);
  }
  const body = (await res.json().catch(() => null)) as any;
  if (res.status !== 202) throw new OperatorError(`${body?.code ?? res.status}: ${body?.message ?? "upload failed"}${body?.errors ? ` ${JSON.stringify(body.errors)}` : ""}`);
  return body.data.id as string;
}

/** Uploads and follows one import; resolves to the exit code (0 when it completed). */
export async function importFile(path: string, flags: OperatorFlags & { interval: string }): Promise<number> {
  if (!existsSync(path) || !statSync(path).isFile()) throw new OperatorError(`no file ${path}`);
  const interval = Number(flags.interval);
  if (!Number.isFinite(interval) || interval < 50) throw new OperatorError("--interval must be at least 50 (ms)");
  const op = await openOperator(flags);
  const ws = await findWorkspace(op, flags.workspace);
  // a long import outlives one token: minted again before it gets old (the server refuses tokens over 15 minutes)
  const tokens = new FreshToken(() => ownerToken(op, ws.id, 300), 60_000);
  const id = await upload(op, await tokens.get(), path);
  const Screen = importScreen(await import("ink"));
  let report: ImportReport = { id, status: "queued", total: null, processed: 0, created: 0, updated: 0, rejected: 0, error: null, errors: [] };
  quietOnBrokenPipe(); // Ink writes to process.stdout (a stream): its reader may go away
  const ink = (await import("ink")).render(<Screen file={basename(path)} r={report} />, { patchConsole: false });
  try {
    for (;;) {
      const r = await callApi(op, await tokens.get(), "GET", `/api/v1/contacts/imports/${id}`);
      if (r.status === 200) {
        report = r.body.data;
        ink.rerender(<Screen file={basename(path)} r={report} />);
        if (report.status === "completed" || report.status === "failed") break;
      } else if (r.status !== 429) {
        await requireApi(op, await tokens.get(), "GET", `/api/v1/contacts/imports/${id}`); // throws with the server's message
      }
      await Bun.sleep(interval);
    }
  } finally {
    ink.unmount();
  }
  process.stdout.write(summaryLines(report).join("\n") + "\n");
  return report.status === "completed" ? 0 : 1;
}
