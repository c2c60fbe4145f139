// The repository's own files, as a reader of the checkout sees them (no dependencies, builds or data).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "../..");

/** Folders that are not the project's own text: installed packages, git, builds, data dirs, test output. */
const SKIP = new Set(["node_modules", ".git", "dist", "data", "test-artifacts", ".bench", ".cache"]);

/** Files under the given top-level folders (default: the whole checkout), skipping SKIP folders. */
export function repoFiles(tops: string[] = ["."]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (SKIP.has(name)) continue;
      const path = join(dir, name);
      const st = statSync(path, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(path);
      else if (st.isFile()) out.push(path);
    }
  };
  for (const top of tops) {
    const dir = join(ROOT, top);
    if (statSync(dir, { throwIfNoEntry: false })?.isDirectory()) walk(dir);
  }
  return out.map((p) => p.replace(/\/\.\//, "/"));
}

/** A file's text, or null for binary files (a NUL byte in the first 8 KiB) and very large ones. */
export function textOf(path: string): string | null {
  if (statSync(path).size > 4 * 1024 * 1024) return null;
  const bytes = readFileSync(path);
  if (bytes.subarray(0, 8192).includes(0)) return null;
  return bytes.toString("utf8");
}
