import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The Bun the binary must be built with: the exact version pinned in package.json
 * (devDependencies.bun). An older Bun builds a binary whose WebSocket client ignores the
 * handshake timeout, so a build with it is refused.
 */
export function pinnedBunVersion(packageJson = join(import.meta.dir, "..", "package.json")): string {
  const pkg = JSON.parse(readFileSync(packageJson, "utf8")) as { devDependencies?: Record<string, string> };
  const pinned = pkg.devDependencies?.bun;
  if (!pinned || !/^\d+\.\d+\.\d+$/.test(pinned)) throw new Error(`package.json must pin devDependencies.bun to an exact version (found ${pinned ?? "nothing"})`);
  return pinned;
}

/** -1, 0 or 1 as `a` is older than, the same as, or newer than `b` (x.y.z, a pre-release suffix ignored). */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split("-")[0]!.split(".").map((n) => Number.parseInt(n, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0) ? -1 : 1;
  return 0;
}

/** Null when `actual` may build, else the message to stop the build with. */
export function bunVersionProblem(actual: string, pinned: string): string | null {
  if (compareVersions(actual, pinned) >= 0) return null;
  return (
    `This Bun is ${actual}, older than the ${pinned} the binary must be built with ` +
    `(older WebSocket clients ignore the handshake timeout). Run \`npm ci\` and build with ` +
    `\`npm run build\` (it uses node_modules/.bin/bun), or install Bun ${pinned}.`
  );
}

if (import.meta.main) {
  // PARLEY_BUN_VERSION stands in for the running Bun's version (tests of this check)
  const actual = process.env.PARLEY_BUN_VERSION || Bun.version;
  const problem = bunVersionProblem(actual, pinnedBunVersion());
  if (problem) {
    process.stderr.write(`build refused: ${problem}\n`);
    process.exit(1);
  }
}
