// Keyset pages of messages on a table of 1M rows (two workspaces): the time of a deep page
// (near the oldest message) against the first page, and against an OFFSET page at the same
// depth, measured in the same run. Keyset stays flat; OFFSET grows with the depth.
import { messagePageQuery } from "../src/modules/messages/repo.ts";
import { loadConfig } from "../src/config.ts";
import { sqliteOf } from "../src/db/sqlite.ts";
import { silentLogger } from "../src/log.ts";
import { SimDriver } from "../src/network/sim/driver.ts";
import { createRuntime } from "../src/runtime.ts";
import { report } from "./lib/report.ts";
import { benchDir } from "./lib/tmp.ts";

const ROWS = 1_000_000;
const REPS = 200;
const config = loadConfig({ dataDir: benchDir("parley-bench-"), network: "sim", logLevel: "silent" });
const rt = await createRuntime(config, silentLogger, { dbPath: ":memory:", network: new SimDriver() });
const { db } = rt.deps;
// seeding and the OFFSET baseline go to the SQLite connection directly (nothing else runs meanwhile)
const sqlite = sqliteOf(db)!;
const ws = [Bun.randomUUIDv7(), Bun.randomUUIDv7()];
for (const id of ws) sqlite.query("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES (?, 'bench', 0, 0)").run(id);
const ins = sqlite.prepare(
  `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
   VALUES (?, ?, 's', 'c', 'outbound', ?, 'text', 'hello', 'sent', ?, ?)`,
);
const t0 = Date.now() - ROWS;
let ids: string[] = [];
sqlite.transaction(() => {
  for (let i = 0; i < ROWS; i++) {
    const id = Bun.randomUUIDv7(undefined, t0 + i);
    if (i % 2 === 0) ids.push(id);
    ins.run(id, ws[i % 2]!, `9199${String(i % 1000).padStart(8, "0")}`, t0 + i, t0 + i);
  }
})();
sqlite.exec("ANALYZE");
const deepCursor = ids[100]!; // near the oldest message of workspace 0
ids = [];

async function time(fn: () => unknown): Promise<number> {
  for (let i = 0; i < 20; i++) await fn();
  const start = performance.now();
  for (let i = 0; i < REPS; i++) await fn();
  return (performance.now() - start) / REPS;
}
const first = await time(() => messagePageQuery(db, ws[0]!, {}, { limit: 50 }).all());
const deep = await time(() => messagePageQuery(db, ws[0]!, {}, { limit: 50, before: deepCursor }).all());
const offset = await time(() =>
  sqlite.query("SELECT * FROM messages WHERE workspace_id = ? ORDER BY id DESC LIMIT 50 OFFSET ?").all(ws[0]!, ROWS / 2 - 150),
);
console.log(`first page: ${first.toFixed(3)} ms; deep keyset page: ${deep.toFixed(3)} ms; OFFSET page at the same depth: ${offset.toFixed(3)} ms`);
console.log(`ratio deep/first (keyset): ${(deep / first).toFixed(2)}`);
console.log(`ratio offset/keyset at depth: ${(offset / deep).toFixed(1)}`);
report("messages", "Message lists: keyset pages on 1M rows (in process, in-memory SQLite)", [
  { scenario: "deep keyset page (time)", parley: deep, baseline: first, ratio: first / deep, unit: "ms", baselineWhat: "the first page", notes: `OFFSET page at the same depth: ${offset.toFixed(3)} ms (${(offset / deep).toFixed(1)}x the keyset page)` },
]);
await rt.close();
