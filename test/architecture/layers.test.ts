import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importGraph, type Graph } from "./graph.ts";

// The layering rule (docs/architecture-layers.md), from the bottom:
//   core (src/db, src/jobs, src/events) < tables (modules/*/table.ts, users/roles.ts, src/schema)
//   < module code (repositories and services) < src/http < routes and app.ts < cli
// A file may import its own layer or lower ones. Files outside these (clock, errors, config,
// crypto, network, ...) are shared helpers and not ranked.

/** The layer of a file, or null for a shared helper. */
function layer(file: string): number | null {
  if (/^src\/(db|jobs|events)\//.test(file)) return 0;
  if (/^src\/modules\/[^/]+\/table\.ts$/.test(file) || file === "src/modules/users/roles.ts" || file.startsWith("src/schema/")) return 1;
  if (/^src\/modules\/[^/]+\/routes[^/]*\.ts$/.test(file) || file === "src/app.ts") return 4;
  if (file.startsWith("src/modules/")) return 2;
  if (file.startsWith("src/http/")) return HTTP_HELPERS.has(file) ? null : 3;
  if (file.startsWith("cli/")) return 5;
  return null;
}

const LAYER_NAMES = ["core", "tables", "module code", "http", "routes", "cli"];

/** Helpers of src/http that the modules' models and services share: they import no ranked file (checked below). */
const HTTP_HELPERS = new Set(
  ["lazy-schema", "phone", "envelope", "html", "openapi", "cursor", "public-url", "request-meta", "request-slot"].map((f) => `src/http/${f}.ts`),
);

/** Imports that cross the rule on purpose, each with its reason. Keep this short. */
const ALLOWED = new Map<string, string>([
  ["src/main.ts -> cli/program.ts", "the binary's entry point: its whole job is to start the CLI program"],
  ["src/modules/segments/table.ts -> src/modules/segments/filter.ts", "a type-only import: the type of the filter's JSON column"],
  ["src/modules/segments/repo.ts -> src/modules/segments/filter.ts", "a type-only import: the type of the filter's JSON column"],
  ["src/modules/messages/send-repo.ts -> src/modules/billing/quota.ts", "a type-only import: the subscription statuses"],
  ["src/modules/billing/repo.ts -> src/modules/billing/quota.ts", "effectivePlanIdSql: the plan-in-force rule as SQL, kept beside the same rule in TypeScript"],
]);

/** Cycles allowed, each as its files joined by " > ", with its reason. None today. */
const ALLOWED_CYCLES = new Map<string, string>([]);

let graph: Graph;
let cycles: string[][];

beforeAll(async () => {
  ({ graph, cycles } = await importGraph());
}, 120_000);

const edges = () => Object.entries(graph).flatMap(([from, deps]) => deps.map((to) => ({ from, to, key: `${from} -> ${to}` })));

describe("the import graph (madge)", () => {
  test("madge reads the whole of src/ and cli/", () => {
    expect(Object.keys(graph).length).toBeGreaterThan(250);
    expect(graph["src/http/auth-guard.ts"]).toContain("src/modules/users/repo.ts");
  });

  test("has no import cycle in src/ and cli/", () => {
    expect(cycles.map((c) => c.join(" > ")).filter((c) => !ALLOWED_CYCLES.has(c))).toEqual([]);
  });

  test("no lower layer imports a higher one", () => {
    const wrong = edges()
      .filter(({ from, to, key }) => {
        const a = layer(from);
        const b = layer(to);
        return a !== null && b !== null && a < b && !ALLOWED.has(key);
      })
      .map(({ from, to, key }) => `${key} (${LAYER_NAMES[layer(from)!]} imports ${LAYER_NAMES[layer(to)!]})`);
    expect(wrong).toEqual([]);
  });

  test("core (src/db, src/jobs, src/events) imports nothing from src/modules or src/http", () => {
    const wrong = edges().filter(({ from, to }) => /^src\/(db|jobs|events)\//.test(from) && /^src\/(modules|http)\//.test(to));
    expect(wrong.map((e) => e.key)).toEqual([]);
  });

  test("src/http imports no table.ts and no routes", () => {
    const wrong = edges().filter(({ from, to }) => from.startsWith("src/http/") && /^src\/modules\/[^/]+\/(table|routes[^/]*)\.ts$/.test(to));
    expect(wrong.map((e) => e.key)).toEqual([]);
  });

  test("the shared helpers of src/http import no ranked file", () => {
    const wrong = edges().filter(({ from, to }) => HTTP_HELPERS.has(from) && layer(to) !== null);
    expect(wrong.map((e) => e.key)).toEqual([]);
  });

  test("a repository imports no service: only tables, other repositories and its module's model (shapes)", () => {
    const repo = (f: string) => /^src\/modules\/[^/]+\/([\w-]+-)?repo\.ts$/.test(f);
    const data = (f: string) => repo(f) || layer(f) === 1 || /^src\/modules\/[^/]+\/model\.ts$/.test(f);
    const wrong = edges().filter(({ from, to, key }) => repo(from) && to.startsWith("src/modules/") && !data(to) && !ALLOWED.has(key));
    expect(wrong.map((e) => e.key)).toEqual([]);
  });

  test("src/ never imports cli/ (but for the entry point)", () => {
    const wrong = edges().filter(({ from, to, key }) => from.startsWith("src/") && to.startsWith("cli/") && !ALLOWED.has(key));
    expect(wrong.map((e) => e.key)).toEqual([]);
  });

  test("every allowed exception is still needed", () => {
    const keys = new Set(edges().map((e) => e.key));
    expect([...ALLOWED.keys()].filter((k) => !keys.has(k))).toEqual([]);
  });
});

describe("src/http writes no SQL", () => {
  test("no statement text in src/http (the repositories own it)", () => {
    const files = Object.keys(graph).filter((f) => f.startsWith("src/http/"));
    const sql = /\b(SELECT\s+[\w"*]|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET)\b/;
    const wrong = files.filter((f) => sql.test(readFileSync(join(import.meta.dir, "../..", f), "utf8")));
    expect(wrong).toEqual([]);
  });
});

describe("users has one owner", () => {
  test("only modules/users (and the schema list) import users/table.ts or name the users table in SQL", () => {
    const importers = edges()
      .filter(({ from, to }) => to === "src/modules/users/table.ts" && !from.startsWith("src/modules/users/"))
      .map((e) => e.from);
    // tables that reference users by foreign key and the list of every table for drizzle-kit
    expect(importers.sort()).toEqual(["src/modules/auth/table.ts", "src/modules/inbox/table.ts", "src/modules/team/table.ts", "src/schema/schema-tables.ts"]);
    const sql = /\b(FROM|JOIN|INTO|UPDATE)\s+users\b/i;
    const raw = Object.keys(graph).filter((f) => !f.startsWith("src/modules/users/") && sql.test(readFileSync(join(import.meta.dir, "../..", f), "utf8")));
    expect(raw).toEqual([]);
  });
});
