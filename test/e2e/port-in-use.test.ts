import { expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, spawnServer } from "../helpers/process.ts";

test("a second server on a port already taken refuses to start: one line, non-zero exit; the first keeps serving", async () => {
  const first = await spawnServer({ dataDir: mkdtempSync(join(tmpdir(), "parley-port-a-")) });
  try {
    const dataDir = mkdtempSync(join(tmpdir(), "parley-port-b-"));
    const second = Bun.spawn(
      [BUN, join(ROOT, "src/main.ts"), "serve", "--port", String(first.port), "--data-dir", dataDir, "--network", "sim", "--log-format", "json"],
      { cwd: ROOT, env: { ...process.env, PARLEY_LOG_LEVEL: "silent" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
    );
    const timer = setTimeout(() => second.kill("SIGKILL"), 20_000); // a second server that did bind would run forever
    const code = await second.exited;
    clearTimeout(timer);
    const stderr = (await new Response(second.stderr).text()).trim();
    const stdout = await new Response(second.stdout).text();
    expect(stdout).not.toContain("listening");
    expect(code).toBe(1);
    expect(stderr.split("\n")).toHaveLength(1);
    expect(stderr).toContain(`port ${first.port}`);
    expect(stderr).toContain("already in use");
    // it let go of its data dir: another start there is not refused as busy
    expect(existsSync(join(dataDir, "parley.pid"))).toBe(false);

    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${first.url}/health`);
      expect(r.status).toBe(200);
    }
  } finally {
    expect(await first.stop()).toBe(0);
  }
}, 30_000);
