import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bunVersionProblem, compareVersions, pinnedBunVersion } from "../../build/check-bun.ts";
import { BUN, ROOT } from "../helpers/process.ts";

test("package.json pins the exact Bun the binary is built with, at least 1.4.5, and npm run build checks it first", () => {
  const pinned = pinnedBunVersion();
  expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
  expect(compareVersions(pinned, "1.4.5")).toBeGreaterThanOrEqual(0);
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  expect(pkg.scripts.build).toStartWith("bun build/check-bun.ts && ");
  // the Bun that runs these tests is the pinned one (npm ci installs it)
  expect(bunVersionProblem(Bun.version, pinned)).toBeNull();
});

test("versions compare by number, not by text", () => {
  expect(compareVersions("1.4.5", "1.4.5")).toBe(0);
  expect(compareVersions("1.4.10", "1.4.5")).toBe(1);
  expect(compareVersions("1.3.99", "1.4.5")).toBe(-1);
  expect(compareVersions("2.0.0", "1.99.99")).toBe(1);
  expect(compareVersions("1.4.5-canary.1", "1.4.5")).toBe(0);
  expect(bunVersionProblem("1.4.6", "1.4.5")).toBeNull();
  expect(bunVersionProblem("1.4.4", "1.4.5")).toContain("older than the 1.4.5");
});

test("the build check exits 1 with a clear message on an older Bun, 0 on the pinned one", async () => {
  const run = (version?: string) =>
    Bun.spawnSync([BUN, join(ROOT, "build/check-bun.ts")], { cwd: ROOT, env: { ...process.env, PARLEY_BUN_VERSION: version ?? "" }, stderr: "pipe" });
  const old = run("1.4.4");
  expect(old.exitCode).toBe(1);
  expect(old.stderr.toString()).toContain("build refused: This Bun is 1.4.4, older than the");
  const fine = run();
  expect(fine.exitCode).toBe(0);
  expect(fine.stderr.toString()).toBe("");
});
