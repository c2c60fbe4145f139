// Segment counts over 100,000 contacts of one workspace (another workspace holds 100,000 more):
// each filter shape against a bare baseline measured in the same run, a plain
// `SELECT count(*) FROM contacts WHERE workspace_id = ?` on the same table. Also the time to
// read every matching contact with the keyset batch reader (what a campaign materialises).
import { loadConfig } from "../src/config.ts";
import { sqliteOf } from "../src/db/sqlite.ts";
import { silentLogger } from "../src/log.ts";
import { insertStoredContact } from "../src/modules/contacts/store.ts";
import { compileSegmentFilter, countSegment, readSegmentBatches, segmentFilter } from "../src/modules/segments/filter.ts";
import { SimDriver } from "../src/network/sim/driver.ts";
import { createRuntime } from "../src/runtime.ts";
import { benchDir } from "./lib/tmp.ts";

const CONTACTS = 100_000;
const REPS = 20;
const DAY = 86_400_000;
const dataDir = benchDir("parley-bench-");
const config = loadConfig({ dataDir, network: "sim", logLevel: "silent" });
// a file database (WAL), as in production
const rt = await createRuntime(config, silentLogger, { network: new SimDriver() });
const { db } = rt.deps;
// the baseline, the plans and ANALYZE go to the SQLite connection directly (nothing else runs meanwhile)
const sqlite = sqliteOf(db)!;
const ws = [Bun.randomUUIDv7(), Bun.randomUUIDv7()];
for (const id of ws) sqlite.query("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES (?, 'bench', 0, 0)").run(id);
const now = Date.now();
const cities = ["Pune", "Delhi", "Mumbai", "Chennai", "Kolkata", "Jaipur", "Indore", "Surat"];
const seeded = performance.now();
await db.tx(async () => {
  for (const w of ws) {
    for (let i = 0; i < CONTACTS; i++) {
      const tags: string[] = [];
      if (i % 10 === 0) tags.push("vip"); // 10 %
      if (i % 3 === 0) tags.push("lead"); // 33 %
      if (i % 2 === 0) tags.push("customer"); // 50 %
      if (i % 7 === 0) tags.push("churned"); // 14 %
      if (i % 100 === 0) tags.push("beta"); // 1 %
      await insertStoredContact(db, w, {
        id: Bun.randomUUIDv7(undefined, now - CONTACTS + i),
        phone: `9198${String(i).padStart(8, "0")}`,
        name: `Person ${i}`,
        pushName: null,
        tags,
        attributes: { city: cities[i % cities.length]!, plan: i % 5 === 0 ? "gold" : "basic" },
        optedOut: i % 20 === 0,
        lastInboundAt: i % 4 === 0 ? now - (i % 60) * DAY : null,
        at: now - (i % 365) * DAY,
      });
    }
  }
});
sqlite.exec("ANALYZE");
console.log(`seeded ${(2 * CONTACTS).toLocaleString("en")} contacts in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

async function time(fn: () => unknown): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const start = performance.now();
  for (let i = 0; i < REPS; i++) await fn();
  return (performance.now() - start) / REPS;
}

const bare = await time(() => sqlite.query("SELECT count(*) AS n FROM contacts WHERE workspace_id = ?").get(ws[0]!));
console.log(`baseline: plain COUNT(*) of the workspace's ${CONTACTS.toLocaleString("en")} contacts: ${bare.toFixed(2)} ms`);
const filters: Record<string, unknown> = {
  "all opted-in": {},
  "tagsAny [vip]": { tagsAny: ["vip"] },
  "tagsAny [lead, beta]": { tagsAny: ["lead", "beta"] },
  "tagsAll [lead, customer]": { tagsAll: ["lead", "customer"] },
  "tagsNone [churned]": { tagsNone: ["churned"] },
  "attributes {city: Pune}": { attributes: { city: "Pune" } },
  "lastInboundWithinDays 7": { lastInboundWithinDays: 7 },
  "createdWithinDays 30": { createdWithinDays: 30 },
  "combined (any, none, attribute, created)": { tagsAny: ["customer", "lead"], tagsNone: ["churned"], attributes: { plan: "gold" }, createdWithinDays: 180 },
};
for (const [label, raw] of Object.entries(filters)) {
  const f = segmentFilter.parse(raw);
  let n = 0;
  const ms = await time(async () => (n = await countSegment(db, ws[0]!, f, now)));
  const { where, params } = compileSegmentFilter(ws[0]!, f, now);
  const plan = (sqlite.query(`EXPLAIN QUERY PLAN SELECT count(*) FROM contacts c WHERE ${where}`).all(...params) as { detail: string }[]).map((r) => r.detail);
  const scans = plan.filter((d) => d.startsWith("SCAN ")).length;
  console.log(`count ${label}: ${n.toLocaleString("en")} contacts in ${ms.toFixed(2)} ms (${(ms / bare).toFixed(1)}x baseline)${scans ? ` [plan has ${scans} table scan(s)]` : " [indexed]"}`);
}
async function readAll(raw: unknown): Promise<{ rows: number; ms: number }> {
  const start = performance.now();
  let rows = 0;
  for await (const batch of readSegmentBatches(db, ws[0]!, segmentFilter.parse(raw), now, { batchSize: 1000 })) rows += batch.length;
  return { rows, ms: performance.now() - start };
}
const plain = await readAll({});
console.log(`keyset read of every opted-in contact (${plain.rows.toLocaleString("en")} rows, batches of 1,000): ${plain.ms.toFixed(0)} ms`);
// a tag filter must cost per batch what the batch walks, not the whole tag set again (that was quadratic)
for (const [label, raw] of Object.entries({ "tagsAny [customer]": { tagsAny: ["customer"] }, "tagsNone [churned]": { tagsNone: ["churned"] } })) {
  const r = await readAll(raw);
  console.log(`keyset read ${label} (${r.rows.toLocaleString("en")} rows): ${r.ms.toFixed(0)} ms (${(r.ms / r.rows / (plain.ms / plain.rows)).toFixed(1)}x the unfiltered read per row)`);
}
await rt.close();
