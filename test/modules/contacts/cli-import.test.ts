// `parley contacts import` against a real server (child process): uploads, follows the job,
// exits 0 with the report summary; a failed import exits 1 with the reason.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { progressLine, summaryLines } from "../../../cli/contacts.tsx";
import { seedWorkspace } from "../sessions/operator-fixtures.ts";
import { BUN, ROOT, spawnServer, type ChildServer } from "../../helpers/process.ts";

const MAIN = join(ROOT, "src/main.ts");
let dataDir: string;
let server: ChildServer;
let workspaceId: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "parley-cli-import-"));
  server = await spawnServer({ dataDir, env: { PARLEY_JOB_POLL_MS: "100" } });
  workspaceId = seedWorkspace(dataDir, "Acme").workspaceId;
});
afterAll(() => server.stop());

async function parley(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([BUN, MAIN, ...args, "--data-dir", dataDir, "--url", server.url], { stdout: "pipe", stderr: "pipe", env: { ...process.env, PARLEY_JWT_SECRET: "" } });
  const [out, err] = [await new Response(p.stdout).text(), await new Response(p.stderr).text()];
  return { code: await p.exited, out, err };
}

test("imports a CSV with a progress bar and exits 0 printing the summary and the rejected rows", async () => {
  const rows = ["phone,name,tags,city"];
  for (let i = 0; i < 3000; i++) rows.push(i === 10 ? "bad,Bad,,x" : `9197${String(i).padStart(8, "0")},P${i},cli|bulk,Pune`);
  const file = join(dataDir, "cli.csv");
  writeFileSync(file, rows.join("\n") + "\n");
  const r = await parley("contacts", "import", file, "--workspace", "Acme", "--interval", "50");
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  expect(r.out).toContain("Importing cli.csv");
  expect(r.out).toMatch(/\[█+\] 100% 3,000\/3,000/);
  expect(r.out).toMatch(/Import [0-9a-f-]{36} completed: 3,000 rows, 2,999 created, 0 updated, 1 rejected/);
  expect(r.out).toContain("row 12: phone:");
  const db = new Database(join(dataDir, "parley.db"), { readonly: true });
  expect(db.query("SELECT count(*) AS n FROM contacts WHERE workspace_id = ?").get(workspaceId)).toEqual({ n: 2999 });
  db.close();
});

test("a file the server cannot import exits 1 with the reason; a missing file or workspace is one line on stderr", async () => {
  const file = join(dataDir, "noheader.csv");
  writeFileSync(file, "name\nA\n");
  const r = await parley("contacts", "import", file, "--workspace", "Acme");
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/failed after 0 rows: header: a "phone" column is required/);
  const missing = await parley("contacts", "import", join(dataDir, "nope.csv"), "--workspace", "Acme");
  expect(missing.code).toBe(1);
  expect(missing.err).toContain("no file");
  const nows = await parley("contacts", "import", file, "--workspace", "Nobody");
  expect(nows.code).toBe(1);
  expect(nows.err).toContain('no workspace "Nobody"');
});

test("progress and summary text", () => {
  expect(progressLine({ total: 200_000, processed: 50_000 })).toBe(`[${"█".repeat(8)}${"░".repeat(22)}]  25% 50,000/200,000`);
  expect(progressLine({ total: null, processed: 0 })).toContain("0 rows");
  const lines = summaryLines({ id: "i", status: "completed", total: 20, processed: 20, created: 5, updated: 0, rejected: 15, error: null, errors: Array.from({ length: 15 }, (_, i) => ({ row: i + 2, message: "bad" })) });
  expect(lines.length).toBe(12);
  expect(lines[11]).toContain("and 5 more");
});
