/**
 * Dumps the app's route table (method, path, every hook by kind and order: each function's name
 * and a hash of its source; the other options as JSON), the code composed for each route and the
 * OpenAPI document, for comparing two trees: `bun bench/route-table.ts <tree> <out-dir>` (the tree defaults to this one).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const root = resolve(process.argv[2] ?? `${import.meta.dir}/..`);
const out = resolve(process.argv[3] ?? "/tmp/route-table");
const { createTestApp } = await import(`${root}/test/helpers/app.ts`);
// a third argument: the config as JSON (e.g. {"metricsToken":"x"}: the routes that exist only with it)
const t = await createTestApp({ config: JSON.parse(process.argv[4] ?? "{}") });

const seen = new WeakSet<object>();
function describe(value: unknown, depth = 0): unknown {
  if (typeof value === "function") return `fn ${value.name || "(anonymous)"} #${Bun.hash(value.toString()).toString(36)}`;
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value) || depth > 8) return "[seen]";
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => describe(v, depth + 1));
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(value)) o[k] = describe((value as Record<string, unknown>)[k], depth + 1);
    return o;
  } finally {
    seen.delete(value);
  }
}

const lines: string[] = [];
for (const r of t.app.routes as { method: string; path: string; hooks: Record<string, unknown> }[]) {
  lines.push(`${r.method} ${r.path}`);
  for (const [kind, hook] of Object.entries(r.hooks ?? {})) {
    if (kind === "detail") continue; // the document shows it
    lines.push(`  ${kind}: ${JSON.stringify(describe(hook))}`);
  }
}
// the code Elysia composes for each route (what a request runs)
const composed: string[] = [];
for (const r of t.app.routes as { method: string; path: string; compile?: () => Function }[]) composed.push(`${r.method} ${r.path}\n${r.compile?.().toString() ?? "(no compile)"}\n`);
composed.push(`the general handler\n${(t.app as unknown as { fetch: Function }).fetch.toString()}\n`);
mkdirSync(out, { recursive: true });
writeFileSync(`${out}/composed.txt`, composed.join("\n"));
writeFileSync(`${out}/routes.txt`, lines.join("\n") + "\n");
const doc = await t.request("GET", "/openapi.json");
writeFileSync(`${out}/openapi.json`, JSON.stringify(doc.body, null, 1) + "\n");
console.log(`${t.app.routes.length} routes, ${lines.length} lines → ${out}`);
await t.close();
process.exit(0);
