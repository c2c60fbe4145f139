import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, spawnServer } from "../helpers/process.ts";

test("the real server listens on a free port, answers over HTTP and stops cleanly on SIGTERM", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-e2e-"));
  const s = await spawnServer({ dataDir });
  const res = await fetch(`${s.url}/health`);
  expect(res.status).toBe(200);
  expect(res.headers.get("x-request-id")).toBeTruthy();
  expect(((await res.json()) as any).data.status).toBe("ok");
  const missing = await fetch(`${s.url}/api/nothing`);
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as any).code).toBe("NOT_FOUND");
  expect(await s.stop("SIGTERM")).toBe(0);
  expect(s.logs()).toContain('"msg":"stopped"');
  // closed cleanly: the WAL was checkpointed and truncated
  const wal = join(dataDir, "parley.db-wal");
  expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
  const db = new Database(join(dataDir, "parley.db"), { readonly: true });
  expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  db.close();
});

test("SIGINT also stops gracefully", async () => {
  const s = await spawnServer({ dataDir: mkdtempSync(join(tmpdir(), "parley-e2e-")) });
  expect(await s.stop("SIGINT")).toBe(0);
});

test("a bad setting stops start-up with one line naming it", async () => {
  const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "serve", "--port", "99999"], { stdout: "pipe", stderr: "pipe", cwd: mkdtempSync(join(tmpdir(), "parley-bad-")) });
  expect(await p.exited).toBe(2);
  const err = await new Response(p.stderr).text();
  expect(err.trim().split("\n")).toHaveLength(1);
  expect(err).toContain("port");
});

test("parley migrate creates the schema; --help lists every command", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-mig-"));
  const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "migrate", "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe" });
  expect(await p.exited).toBe(0);
  expect(await new Response(p.stdout).text()).toMatch(/applied \d+ migration/);
  const db = new Database(join(dataDir, "parley.db"), { readonly: true });
  expect(db.query("SELECT name FROM sqlite_master WHERE name = 'jobs'").get()).toBeTruthy();
  db.close();
  const help = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "--help"], { stdout: "pipe" });
  const text = await new Response(help.stdout).text();
  for (const cmd of ["serve", "migrate", "version"]) expect(text).toContain(cmd);
});

test("one server per data dir: a second one refuses; after a SIGKILL the next one takes over", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-lock-"));
  const first = await spawnServer({ dataDir });
  const second = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "serve", "--port", "0", "--network", "sim", "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe" });
  expect(await second.exited).toBe(1);
  expect(await new Response(second.stderr).text()).toContain(`pid ${first.proc.pid}`);
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  expect(existsSync(join(dataDir, "parley.pid"))).toBe(true); // left behind by the killed one
  const next = await spawnServer({ dataDir });
  expect((await fetch(`${next.url}/health`)).status).toBe(200);
  expect(await next.stop()).toBe(0);
  expect(existsSync(join(dataDir, "parley.pid"))).toBe(false);
});
