import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate.ts";
import { openSqliteFile as openDb } from "../helpers/store.ts";
import { BUN, ROOT } from "../helpers/process.ts";

// docs/operations.md promises the downgrade guard for operator commands too: one line and exit 2 (the
// code systemd and scripts read as "a retry will not fix this"), never a stack trace.

async function newerDataDir(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "parley-newer-op-"));
  const o = openDb(join(dir, "parley.db"));
  await migrate(o.db);
  o.sqlite.query("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-newer-build', ?)").run(Date.now() + 86_400_000);
  await o.close();
  writeFileSync(join(dir, "secrets.json"), JSON.stringify({ jwtSecret: "s".repeat(48), credentialKey: "00".repeat(32) }), { mode: 0o600 });
  return dir;
}

test("every operator command refuses a database from a newer build: one line, exit 2", async () => {
  const dir = await newerDataDir();
  const commands = [
    ["workspaces", "list"],
    ["users", "list", "--workspace", "x"],
    ["keys", "list", "--workspace", "x"],
    ["plan", "list"],
    ["outbox"],
    ["sessions", "list"],
    ["sim", "scan", "desk"],
  ];
  const runs = await Promise.all(
    commands.map(async (args) => {
      const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), ...args, "-d", dir], { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      const err = (await new Response(p.stderr).text()).trim();
      return { args: args.join(" "), code: await p.exited, lines: err.split("\n").length, newer: err.includes("migrated by a newer Parley build") };
    }),
  );
  for (const r of runs) expect(r).toEqual({ args: r.args, code: 2, lines: 1, newer: true });
}, 60_000);
