import { expect, test } from "bun:test";
import { dirname } from "node:path";
import { ROOT, BUN } from "../helpers/process.ts";
import { VERSION } from "../../src/version.ts";

// From a source checkout `parley` is not on PATH; the README says `npx parley`. npm runs the
// package's own bin (package.json "bin", shebang `#!/usr/bin/env bun`), finding Bun in
// node_modules/.bin, so it works without Bun installed globally.
test("npx parley works from the checkout, with no bun on PATH", () => {
  const npx = Bun.which("npx");
  if (!npx) throw new Error("npx is required (it comes with node)");
  const bunDir = dirname(BUN);
  const path = (process.env.PATH ?? "").split(":").filter((d) => d && d !== bunDir && !Bun.which("bun", { PATH: d })).join(":");
  const run = (...args: string[]) => Bun.spawnSync([npx, "--no-install", "parley", ...args], { cwd: ROOT, env: { ...process.env, PATH: `${dirname(npx)}:${path}` }, stdout: "pipe", stderr: "pipe" });
  const version = run("--version");
  expect({ code: version.exitCode, out: version.stdout.toString().trim() }).toEqual({ code: 0, out: VERSION });
  const help = run("--help");
  expect(help.stdout.toString()).toContain("workspaces");
}, 60_000);
