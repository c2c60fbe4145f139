// Keyset pages of messages on 1,000,000 messages of one workspace (another workspace holds
// 100,000 more), on either engine: the time of the first page and of a deep page (its cursor
// 900,000 messages below the newest), interleaved over rounds, and an OFFSET page at the same
// depth for scale. Keyset stays flat (deep/first near 1); OFFSET grows with the depth. On
// PostgreSQL the deep page's plan (EXPLAIN ANALYZE) is written beside the results and checked
// for an index scan. Seeding goes around the API: one transaction of prepared INSERTs on SQLite,
// set-based INSERT ... SELECT FROM generate_series on PostgreSQL (seconds, not minutes).
import { SQL } from "bun";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { sqliteOf } from "../src/db/sqlite.ts";
import { silentLogger } from "../src/log.ts";
import { messagePageQuery } from "../src/modules/messages/repo.ts";
import { reindexAllMessageText } from "../src/modules/messages/fts-repo.ts";
import { SimDriver } from "../src/network/sim/driver.ts";
import { createRuntime } from "../src/runtime.ts";
import { benchEngine, engineDatabase } from "./lib/engine.ts";
import { median, report, resultsDir } from "./lib/report.ts";
import { benchDir } from "./lib/tmp.ts";

const ROWS = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const OTHER = Math.round(ROWS / 10);
const DEPTH = Math.round(ROWS * 0.9);
const REPS = 100;
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5));
const engine = benchEngine();

const databaseUrl = await engineDatabase();
const config = loadConfig({ dataDir: benchDir("parley-bench-"), network: "sim", logLevel: "silent", ...(databaseUrl ? { databaseUrl } : {}) });
const rt = await createRuntime(config, silentLogger, { network: new SimDriver() });
const { db } = rt.deps;
const ws = [Bun.randomUUIDv7(), Bun.randomUUIDv7()] as const;
for (const id of ws) await db.prepare("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES (?, 'bench', 0, 0)").run(id);

// message i of workspace w: a UUIDv7 whose time is t0 + i, the same in JS and in SQL
const t0 = Date.now() - 2 * ROWS;
const hex = (n: number, w: number) => n.toString(16).padStart(w, "0");
const idOf = (w: number, i: number) => {
  const h = hex(t0 + i, 12);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${hex(i % 4096, 3)}-8${hex(w, 3)}-${hex(i, 12)}`;
};

const seedStart = performance.now();
let pg: SQL | undefined;
if (engine === "sqlite") {
  const sqlite = sqliteOf(db)!;
  const ins = sqlite.prepare(
    `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
     VALUES (?, ?, 's', 'c', 'outbound', ?, 'text', 'hello', 'sent', ?, ?)`,
  );
  sqlite.transaction(() => {
    for (const [w, n] of [[0, ROWS], [1, OTHER]] as const) {
      for (let i = 0; i < n; i++) ins.run(idOf(w, i), ws[w], `9199${String(i % 1000).padStart(8, "0")}`, t0 + i, t0 + i);
    }
  })();
  // rows inserted by hand, not through the messages repo: the search index is written here (one rebuild)
  await reindexAllMessageText(db);
  sqlite.exec("ANALYZE");
} else {
  pg = new SQL(databaseUrl!, { max: 1 });
  const CHUNK = 250_000;
  for (const [w, n] of [[0, ROWS], [1, OTHER]] as const) {
    for (let from = 0; from < n; from += CHUNK) {
      const to = Math.min(n, from + CHUNK) - 1;
      await pg.unsafe(
        `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
         SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || lpad(to_hex(g % 4096), 3, '0') || '-8' || lpad(to_hex(${w}), 3, '0') || '-' || lpad(to_hex(g), 12, '0'),
                $1, 's', 'c', 'outbound', '9199' || lpad((g % 1000)::text, 8, '0'), 'text', 'hello', 'sent', ${t0} + g, ${t0} + g
         FROM generate_series(${from}::bigint, ${to}::bigint) AS g, LATERAL (SELECT lpad(to_hex(${t0} + g), 12, '0') AS h) AS x`,
        [ws[w]],
      );
    }
  }
  await pg.unsafe("ANALYZE messages");
}
const seedMs = performance.now() - seedStart;
if (idOf(0, 0) !== ((await db.prepare("SELECT min(id) AS id FROM messages WHERE workspace_id = ?").get(ws[0])) as { id: string }).id) throw new Error("seeded ids differ from idOf");
const deepCursor = idOf(0, ROWS - DEPTH); // DEPTH messages are newer than it

async function time(fn: () => unknown, reps = REPS): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < reps; i++) await fn();
  return (performance.now() - start) / reps;
}
const firstPage = () => messagePageQuery(db, ws[0], {}, { limit: 50 }).all();
const deepPage = () => messagePageQuery(db, ws[0], {}, { limit: 50, before: deepCursor }).all();
const offsetSql = "SELECT * FROM messages WHERE workspace_id = ? ORDER BY id DESC LIMIT 50 OFFSET ?";
const offsetPage = () => db.prepare(offsetSql).all(ws[0], DEPTH);
if ((await deepPage()).length !== 51 || (await deepPage())[0]!.m.id >= deepCursor) throw new Error("the deep page is not below its cursor");
await time(firstPage, 20);
await time(deepPage, 20);
const rounds: { first: number; deep: number }[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push({ first: await time(firstPage), deep: await time(deepPage) });
const offset = await time(offsetPage, 5);

// the deep page's plan
const built = messagePageQuery(db, ws[0], {}, { limit: 50, before: deepCursor }).toSQL() as { sql: string; params: unknown[] };
let plan: string;
if (pg) {
  const rows = (await pg.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${built.sql}`, built.params as never[])) as { "QUERY PLAN": string }[];
  plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
  await pg.close();
} else {
  const rows = sqliteOf(db)!.query(`EXPLAIN QUERY PLAN ${built.sql}`).all(...(built.params as never[])) as { detail: string }[];
  plan = rows.map((r) => r.detail).join("\n");
}
const indexed = engine === "postgres" ? /Index (Only )?Scan/.test(plan) && !/Seq Scan on messages/.test(plan) : /USING (COVERING )?INDEX/.test(plan) && !/SCAN messages\b(?! USING)/.test(plan);
mkdirSync(resultsDir(), { recursive: true });
writeFileSync(join(resultsDir(), "messages-plan.txt"), `-- the deep page (cursor ${DEPTH.toLocaleString("en")} messages below the newest), ${engine}\n-- ${built.sql}\n${plan}\n`);
await rt.close();

const first = median(rounds.map((r) => r.first));
const deep = median(rounds.map((r) => r.deep));
const ratio = median(rounds.map((r) => r.first / r.deep));
report("messages", `Message lists: keyset pages on ${ROWS.toLocaleString("en")} messages of one workspace (+${OTHER.toLocaleString("en")} in another; in process, from source)`, [
  {
    scenario: `deep keyset page (${DEPTH.toLocaleString("en")} messages below the newest), time`,
    parley: deep,
    baseline: first,
    ratio,
    unit: "ms",
    baselineWhat: "the first page",
    lowerIsBetter: true,
    goal: "flat: first/deep ≥ 0.5",
    met: ratio >= 0.5,
    rounds: rounds.map((r) => ({ parley: r.deep, baseline: r.first })),
    notes: `ratio = first / deep. OFFSET page at the same depth: ${offset.toFixed(2)} ms (${(offset / deep).toFixed(1)}x the keyset page). The deep page's plan uses an index: ${indexed ? "yes" : "NO"} (${engine === "postgres" ? "EXPLAIN ANALYZE" : "EXPLAIN QUERY PLAN"} in messages-plan.txt). Seeded in ${(seedMs / 1000).toFixed(1)} s.`,
  },
]);
