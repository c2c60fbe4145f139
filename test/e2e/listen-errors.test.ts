import { expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT } from "../helpers/process.ts";

// A listen address the machine cannot take is a setting to fix: one line naming it, exit 1,
// the data dir released (not a JSON log line with a stack).

for (const host of ["10.255.255.254", "999.1.1.1", "nosuchhost.invalid"]) {
  test(`serve --host ${host}: one line naming --host, exit 1`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "parley-listen-"));
    const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "serve", "--host", host, "--port", "0", "--data-dir", dataDir, "--network", "sim", "--log-format", "json"], {
      cwd: ROOT,
      env: { ...process.env, PARLEY_LOG_LEVEL: "warn" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => p.kill("SIGKILL"), 20_000);
    const code = await p.exited;
    clearTimeout(timer);
    const err = (await new Response(p.stderr).text()).trim();
    expect(code).toBe(1);
    expect(err.split("\n")).toHaveLength(1);
    expect(err).toStartWith(`parley: cannot listen on ${host}`);
    expect(err).toContain("--host");
    expect(existsSync(join(dataDir, "parley.pid"))).toBe(false);
  }, 30_000);
}
