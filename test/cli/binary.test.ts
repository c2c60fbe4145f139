import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, spawnServer } from "../helpers/process.ts";

// Builds the real single-file executable and proves it runs ALONE from an empty directory.
test(
  "the compiled binary migrates an empty data dir by itself and serves /health",
  async () => {
    const buildDir = mkdtempSync(join(tmpdir(), "parley-build-"));
    const out = join(buildDir, "parley");
    const build = Bun.spawn([BUN, "build", "--compile", join(ROOT, "src/main.ts"), "--outfile", out], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const code = await build.exited;
    if (code !== 0) throw new Error(await new Response(build.stderr).text());
    const lonely = mkdtempSync(join(tmpdir(), "parley-alone-"));
    copyFileSync(out, join(lonely, "parley"));
    await Bun.spawn(["chmod", "+x", join(lonely, "parley")]).exited;
    expect(readdirSync(lonely)).toEqual(["parley"]);

    const version = Bun.spawn([join(lonely, "parley"), "version"], { cwd: lonely, stdout: "pipe" });
    expect(await new Response(version.stdout).text()).toMatch(/^parley \d+\.\d+\.\d+/);

    const s = await spawnServer({ dataDir: join(lonely, "data"), cmd: [join(lonely, "parley")], cwd: lonely });
    try {
      const res = await fetch(`${s.url}/health`);
      expect(res.status).toBe(200);
      const docs = await fetch(`${s.url}/docs/assets/swagger-ui.css`);
      expect(docs.status).toBe(200);
    } finally {
      expect(await s.stop()).toBe(0);
    }
    expect(existsSync(join(lonely, "data", "parley.db"))).toBe(true);
    const db = new Database(join(lonely, "data", "parley.db"), { readonly: true });
    const tables = (db.query("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[]).map((t) => t.name);
    expect(tables).toContain("jobs");
    expect(tables).toContain("__drizzle_migrations");
    db.close();
  },
  180_000,
);
