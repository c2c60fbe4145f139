import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, spawnServer } from "../helpers/process.ts";

const health = (dataDir: string) =>
  Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), "health", "-d", dataDir, "--timeout", "2000"], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, PARLEY_PORT: "1" } });

test("parley health: exit 0 while the data dir's server is ready, 1 once it is gone (the container HEALTHCHECK)", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-health-"));
  const server = await spawnServer({ dataDir });
  const up = health(dataDir);
  expect(up.exitCode).toBe(0);
  expect(up.stdout.toString()).toContain(`200 ${server.url}/ready`);
  await server.stop();
  const down = health(dataDir);
  expect(down.exitCode).toBe(1);
  expect(down.stderr.toString()).toContain("/ready failed");
}, 30_000);

test("the Dockerfile checks health with the binary against /ready, and the build context leaves local state out", () => {
  const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
  expect(dockerfile).toMatch(/^HEALTHCHECK .*CMD \["\/usr\/local\/bin\/parley", "health"/m);
  const ignored = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n").map((l) => l.trim());
  for (const entry of ["node_modules", ".git", "data", "dist", "*.tar.gz"]) expect(ignored).toContain(entry);
});
