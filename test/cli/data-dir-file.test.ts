import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT } from "../helpers/process.ts";

// A --data-dir that names a file (a typo, the database itself) is a setting error like any other:
// one line naming the setting, exit 2, from serve and from operator commands alike.

test("a data dir that is a file: one line naming --data-dir, exit 2", () => {
  const file = join(mkdtempSync(join(tmpdir(), "parley-dd-file-")), "parley.db");
  writeFileSync(file, "x");
  for (const args of [["serve", "--port", "0", "--network", "sim"], ["migrate"], ["workspaces", "list"], ["backup", join(tmpdir(), "x.tar.gz")]]) {
    const p = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), ...args, "--data-dir", file], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, PARLEY_LOG_FORMAT: "json" } });
    const err = p.stderr.toString().trim();
    expect({ args: args[0], code: p.exitCode, lines: err.split("\n").length }).toEqual({ args: args[0], code: 2, lines: 1 });
    expect(err).toContain(`dataDir (--data-dir / PARLEY_DATA_DIR): ${file} is a file, not a directory`);
  }
});
