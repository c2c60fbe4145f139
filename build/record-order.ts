// Records build/serve.order, the profile `npm run build` lays the binary's bytecode out by
// (`--bytecode-order`): the functions a `parley serve` start uses (on a data dir migrated once
// before, up to the first /health and a second of idle) go together at the front of the
// bytecode, so a start reads and keeps fewer pages. Functions are matched by a hash of their
// syntax: an old profile still applies to changed code; record again when the start changes a
// lot (bytecodeOrderStats() of bun:jsc counts the functions it missed).
// Run after `bun web/build.ts dist/web`: `bun build/record-order.ts`.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const out = join(import.meta.dir, "serve.order");
const dir = mkdtempSync(join(tmpdir(), "parley-order-"));
const bin = join(dir, "parley");
const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { build: string } }).scripts.build;
// the binary that ships, without the profile it is about to record
const flags = script.split(/\s+/).filter((f) => f.startsWith("--") && f !== "--outfile" && !f.startsWith("--bytecode-order"));
const b = Bun.spawnSync([process.execPath, join(import.meta.dir, "compile.ts"), ...flags, join(root, "src/main.ts"), "--outfile", bin], {
  cwd: root,
  env: { ...process.env, PARLEY_WEB_DIST: process.env.PARLEY_WEB_DIST ?? join(root, "dist/web") },
  stdout: "ignore",
  stderr: "inherit",
});
if (b.exitCode !== 0) throw new Error("build failed");

async function serve(env: Record<string, string>): Promise<void> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const p = Bun.spawn([bin, "serve", "--network", "sim", "--port", String(port), "--data-dir", join(dir, "data")], {
    stdout: "ignore",
    stderr: "inherit",
    env: { ...process.env, PARLEY_LOG_LEVEL: "error", ...env },
  });
  for (let i = 0; i < 2_000; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    await Bun.sleep(5);
  }
  await Bun.sleep(1000);
  p.kill("SIGTERM");
  if ((await p.exited) !== 0) throw new Error("parley serve did not stop cleanly");
}

await serve({}); // migrates the data dir: the recorded start is the usual one, not the first
await serve({ BUN_BYTECODE_ORDER_OUT: out });
console.log(`wrote ${out}`);
