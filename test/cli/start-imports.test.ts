import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

// What `parley workspaces list` loads: the compiled binary puts every module a command reaches by
// a static import or a require into chunks loaded with it, so a package reached that way is
// loaded (and paid for) by every start of the command, used or not. Dynamic imports and
// type-only imports are not edges.

const ROOT = resolve(import.meta.dir, "../..");

/**
 * The packages reached from `entry` through static imports, re-exports and (unless `requires` is
 * false) requires of its source.
 */
function packagesReached(entry: string, { requires = true } = {}): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    const specifiers = [
      ...[...source.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;]*?\sfrom\s+)?["']([^"']+)["'](?!\s*with\s*\{\s*type:\s*"macro")/gm)].map((m) => m[1]!),
      ...(requires ? [...source.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!) : []),
    ];
    for (const s of specifiers) {
      if (s.startsWith(".")) walk(resolve(dirname(file), s));
      else packages.add(s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0]!);
    }
  };
  walk(join(ROOT, entry));
  return packages;
}

test("workspaces list reaches no zod: its settings are read without the schemas", () => {
  const reached = packagesReached("cli/workspaces.ts");
  expect(reached.has("bun:sqlite")).toBe(true); // the walk does find packages
  expect(reached.has("zod")).toBe(false);
  expect(reached.has("libphonenumber-js")).toBe(false);
});

test("the settings' schemas stay one import away for the commands that need them", () => {
  expect(packagesReached("src/config.ts").has("zod")).toBe(true);
  expect(packagesReached("src/config-load.ts").has("zod")).toBe(false);
});

test("the server's start imports neither PostgreSQL's client nor croner on SQLite", () => {
  // both are imported where they are used: the cluster's event listener (PostgreSQL only) when the
  // runtime is made, croner when the periodic jobs start, a moment after the server listens (the
  // store's own PostgreSQL module is required only when the store is PostgreSQL)
  const reached = packagesReached("cli/serve.ts", { requires: false });
  expect(reached.has("elysia")).toBe(true); // the walk does find packages
  expect(reached.has("postgres")).toBe(false);
  expect(reached.has("croner")).toBe(false);
});

test("the server's start evaluates neither node:crypto, node:zlib nor ipaddr.js", () => {
  // Bun's node:crypto and node:zlib are JavaScript modules of their own (with node's streams
  // under them), and ipaddr.js builds its address tables when evaluated: every start paid for
  // them, and the few uses (a constant-time compare, an asset's compressed forms, a webhook
  // URL's address check) require them when they run
  const reached = packagesReached("cli/serve.ts", { requires: false });
  expect(reached.has("node:fs")).toBe(true); // the walk does find built-ins
  expect(reached.has("node:crypto")).toBe(false);
  expect(reached.has("crypto")).toBe(false);
  expect(reached.has("node:zlib")).toBe(false);
  expect(reached.has("zlib")).toBe(false);
  expect(reached.has("ipaddr.js")).toBe(false);
});

test("the server's start evaluates neither node:util, node:os nor node:fs/promises", () => {
  // each is a JavaScript module of Bun's own, evaluated when first imported (node:os asks for the
  // processor count): the server used node:util for promisify only, node:os for the host name of
  // a remote sim network's node id, node:fs/promises for media files and the sim network's sent
  // log; those uses now wrap the callbacks themselves or require the module when they run
  const reached = packagesReached("cli/serve.ts", { requires: false });
  expect(reached.has("node:fs")).toBe(true); // the walk does find built-ins
  for (const name of ["node:util", "util", "node:os", "os", "node:fs/promises", "fs/promises"]) expect(reached.has(name)).toBe(false);
});

test("no module builds a zod schema when it is imported", () => {
  // zod builds a schema's objects when it is declared, and the first schema of a process pays
  // for zod's own warm-up: a module declares its schemas in functions (lazySchema, docSchema, a
  // builder called by them), so the server's start builds none (a route's request schemas are
  // made with its first request, the documentation's with the first /openapi.json)
  const topLevel = /^(?:export\s+)?(?:const|let|var)\s+\w+(?::[^=]+)?\s*=\s*(?:z\b|\w+\.(?:optional|nullable|extend|array|describe)\()/gm;
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name)) {
        const source = readFileSync(path, "utf8");
        if (!/from\s+["']zod["']/.test(source)) continue;
        for (const m of source.matchAll(topLevel)) offenders.push(`${path.slice(ROOT.length + 1)}: ${m[0]}`);
      }
    }
  };
  walk(join(ROOT, "src"));
  expect(offenders).toEqual([]);
});

test("the server's start imports no jose", () => {
  // jose is loaded by the first token a process signs or verifies (src/auth/jose.ts): a start
  // answers /health and API keys without it
  const reached = packagesReached("cli/serve.ts", { requires: false });
  expect(reached.has("elysia")).toBe(true); // the walk does find packages
  expect(reached.has("jose")).toBe(false);
});
