// The binaries a bench run compares: the current tree and a previous release (a git ref), each
// built with `npm run build` and cached under bench/.cache/<commit>/ (gitignored), so a second
// run reuses them. The previous release is built in a `git worktree` checked out for the build
// (`npm ci`, then `npm run build`); the worktree is then unregistered but its files are kept as
// bench/.cache/<commit>/tree (with its node_modules): the in-process benches run the previous
// release's own copy of themselves from there (bench/lib/interleave.ts). The current tree's
// binary is keyed by its commit plus a hash of its uncommitted changes, so an edited tree is
// rebuilt.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");
export const CACHE = join(ROOT, "bench", ".cache");
/** The commit before the asynchronous store landed: the default previous release. */
export const DEFAULT_AGAINST = "44af27b";

/** the files and folders `npm run build` reads (the migrations too: a macro embeds them) */
const BUILD_INPUTS = ["src", "cli", "web", "build", "types", "migrations", "package.json", "package-lock.json", "bun.lock", "tsconfig.json"];

export interface Binary {
  /** "current" or "previous" */
  name: string;
  /** the commit (and, for an edited tree, "+<hash of the diff>") */
  version: string;
  path: string;
  /** the source tree the binary was built from (the previous release: its kept copy) */
  tree: string;
}

/**
 * A copy of the binary at `path`, written now as `<dir>/<name>/parley`, to measure it from. How a
 * file's pages sit in the page cache moves what a start costs: the same bytes started ≈20 % slower
 * (CPU of `--version`) from a file written an hour before than from a fresh copy, and idle RSS
 * read 55 MiB from a file written hours before against 59 MiB from a copy written a minute before
 * (54 for both after dropping the caches). Binaries built at different times, compared as they lay,
 * would measure their files' age: every bench that starts binaries starts copies written the same way.
 */
export function freshCopy(path: string, dir: string, name: string): string {
  mkdirSync(join(dir, name));
  const to = join(dir, name, "parley");
  copyFileSync(path, to);
  chmodSync(to, 0o755);
  return to;
}

function run(cmd: string[], cwd: string, what: string): string {
  const r = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, PARLEY_LOG_LEVEL: "error" } });
  if (r.exitCode !== 0) throw new Error(`${what} failed (${cmd.join(" ")}):\n${r.stderr.toString().slice(-4000)}`);
  return r.stdout.toString().trim();
}

const log = (s: string) => console.error(`[bench build] ${s}`);

/** The current tree's binary: `npm run build` here, cached by commit + diff. */
export function currentBinary(): Binary {
  const commit = run(["git", "rev-parse", "--short=12", "HEAD"], ROOT, "git rev-parse");
  // what the binary is built from: a commit that changes only benches or docs reuses the binary
  const inputs = BUILD_INPUTS.filter((p) => existsSync(join(ROOT, p)));
  const trees = run(["git", "rev-parse", ...inputs.map((p) => `HEAD:${p}`)], ROOT, "git rev-parse (build inputs)");
  const diff = run(["git", "diff", "HEAD", "--", ...inputs], ROOT, "git diff");
  const hash = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex").slice(0, 8);
  const version = `${commit}-src${hash(trees)}${diff ? `+${hash(diff)}` : ""}`;
  const cached = existsSync(CACHE) ? readdirSync(CACHE).find((d) => d.endsWith(version.slice(version.indexOf("-src"))) && existsSync(join(CACHE, d, "parley"))) : undefined;
  const out = join(CACHE, cached ?? version, "parley");
  if (existsSync(out)) {
    log(`current ${version}: cached ${out}`);
    return { name: "current", version, path: out, tree: ROOT };
  }
  log(`current ${version}: npm run build`);
  run(["npm", "run", "build"], ROOT, "npm run build (current)");
  // one current binary is kept (≈150 MB each); previous releases (with their tree) stay
  if (existsSync(CACHE)) for (const d of readdirSync(CACHE)) if (!existsSync(join(CACHE, d, "tree"))) rmSync(join(CACHE, d), { recursive: true, force: true });
  mkdirSync(join(CACHE, version), { recursive: true });
  copyFileSync(join(ROOT, "dist", "parley"), out);
  return { name: "current", version, path: out, tree: ROOT };
}

/** The previous release's binary: built once per commit in a temporary worktree. */
export function previousBinary(ref: string): Binary {
  const commit = run(["git", "rev-parse", "--short=12", `${ref}^{commit}`], ROOT, `git rev-parse ${ref}`);
  const out = join(CACHE, commit, "parley");
  const tree = join(CACHE, commit, "tree");
  if (existsSync(out) && existsSync(join(tree, "node_modules"))) {
    log(`previous ${ref} (${commit}): cached ${out}`);
    return { name: "previous", version: commit, path: out, tree };
  }
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(join(CACHE, commit), { recursive: true });
  log(`previous ${ref} (${commit}): git worktree add ${tree}; npm ci; npm run build`);
  run(["git", "worktree", "add", "--detach", tree, commit], ROOT, "git worktree add");
  let ok = false;
  try {
    run(["npm", "ci", "--no-audit", "--no-fund"], tree, "npm ci (previous)");
    run(["npm", "run", "build"], tree, "npm run build (previous)");
    copyFileSync(join(tree, "dist", "parley"), out);
    ok = true;
  } finally {
    // unregister the worktree, keep its files (a plain directory from now on)
    rmSync(join(tree, ".git"), { force: true });
    Bun.spawnSync(["git", "worktree", "prune"], { cwd: ROOT });
    if (!ok) rmSync(tree, { recursive: true, force: true });
  }
  return { name: "previous", version: commit, path: out, tree };
}
