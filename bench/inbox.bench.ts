// The team inbox on 1,000,000 messages and 100,000 conversations (one workspace, plus a second
// one of the same size so every read must filter by workspace): p99 of a page of the
// conversation list under each filter, and of a full-text search for a rare and a common word,
// against a plain indexed read (one message by its id) measured in the same run. In process,
// in-memory SQLite (the messages' FTS5 index kept by the same triggers as on disk).
import { loadConfig } from "../src/config.ts";
import { sqliteOf } from "../src/db/sqlite.ts";
import { silentLogger } from "../src/log.ts";
import { conversationsKeyset, labelPlan, qMatches, type ConversationFilter } from "../src/modules/inbox/repo.ts";
import { searchMessageIds } from "../src/modules/inbox/search-repo.ts";
import { reindexAllMessageText } from "../src/modules/messages/fts-repo.ts";
import { SimDriver } from "../src/network/sim/driver.ts";
import { createRuntime } from "../src/runtime.ts";
import { report, type Row } from "./lib/report.ts";
import { benchDir } from "./lib/tmp.ts";

const MESSAGES = Number(process.env.INBOX_BENCH_MESSAGES ?? 1_000_000);
const CONVERSATIONS = MESSAGES / 10;
const REPS = 300;
const config = loadConfig({ dataDir: benchDir("parley-bench-"), network: "sim", logLevel: "silent" });
const rt = await createRuntime(config, silentLogger, { dbPath: ":memory:", network: new SimDriver() });
const { db } = rt.deps;
const sqlite = sqliteOf(db)!;
const ws = [Bun.randomUUIDv7(), Bun.randomUUIDv7()];
for (const id of ws) sqlite.query("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES (?, 'bench', 0, 0)").run(id);
const user = Bun.randomUUIDv7();
sqlite.query("INSERT INTO users (id, workspace_id, email, name, password_hash, role, created_at, updated_at) VALUES (?, ?, 'a@bench', 'A', 'x', 'agent', 0, 0)").run(user, ws[0]!);

const WORDS = ["order", "price", "delivery", "refund", "size", "colour", "shoes", "bag", "discount", "invoice", "address", "thanks", "hello", "tomorrow", "today"];
const STATUSES = ["open", "pending", "closed"];
const t0 = Date.now() - MESSAGES;
const seedStart = performance.now();
const convIds: string[][] = [[], []];
const insConv = sqlite.prepare(
  `INSERT INTO conversations (id, workspace_id, session_id, phone, contact_id, last_message_id, last_message_at, unread_count, status, labels, last_direction, assignee_id, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, 0, 0)`,
);
// one contact per conversation: a name every search term can hit, and a rare two-letter push name
const insContact = sqlite.prepare("INSERT INTO contacts (id, workspace_id, phone, name, push_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, 0)");
const insLabel = sqlite.prepare("INSERT INTO conversation_labels (workspace_id, label, conversation_id) VALUES (?, ?, ?)");
const insMsg = sqlite.prepare(
  `INSERT INTO messages (id, workspace_id, session_id, conversation_id, direction, phone, type, body, status, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, 'text', ?, 'sent', ?, ?)`,
);
let someMessage = "";
sqlite.transaction(() => {
  for (let i = 0; i < MESSAGES; i++) {
    const w = i % 2;
    const c = Math.floor(i / 2) % (CONVERSATIONS / 2);
    const id = Bun.randomUUIDv7(undefined, t0 + i);
    if (i === MESSAGES / 2) someMessage = id;
    const words = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${WORDS[(i * 11) % WORDS.length]} ref${i}`;
    insMsg.run(id, ws[w]!, `s${c % 4}`, `c${w}-${c}`, i % 3 === 0 ? "inbound" : "outbound", `9198${String(c).padStart(8, "0")}`, words, t0 + i, t0 + i);
  }
  for (let w = 0; w < 2; w++) {
    for (let c = 0; c < CONVERSATIONS / 2; c++) {
      const id = Bun.randomUUIDv7(undefined, t0 + c);
      convIds[w]!.push(id);
      const labels = c % 10 === 0 ? ["vip"] : [];
      const contactId = Bun.randomUUIDv7(undefined, t0 + c);
      insContact.run(contactId, ws[w]!, `9198${String(c).padStart(8, "0")}`, `Customer ${c}`, c % 20_000 === 7 ? "Zq" : `buyer ${c % 97}`);
      insConv.run(id, ws[w]!, `s${c % 4}`, `9198${String(c).padStart(8, "0")}`, contactId, null, t0 + c * 10, STATUSES[c % 3]!, JSON.stringify(labels), c % 4 === 0 ? "inbound" : "outbound", w === 0 && c % 5 === 0 ? user : null);
      for (const l of labels) insLabel.run(ws[w]!, l, id);
    }
  }
})();
// rows inserted by hand, not through the messages repo: the search index is written here (one rebuild)
await reindexAllMessageText(db);
if ((await searchMessageIds(db, ws[0]!, [`ref${MESSAGES / 2}`], { limit: 20 }))[0] !== someMessage) throw new Error("the seed left the search index without its messages");
sqlite.exec("ANALYZE");
const seedSeconds = (performance.now() - seedStart) / 1000;

async function p99(fn: () => unknown): Promise<number> {
  for (let i = 0; i < 30; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const s = performance.now();
    await fn();
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(REPS * 0.99)]!;
}

const plainRead = () => sqlite.query("SELECT * FROM messages WHERE workspace_id = ? AND id = ?").get(ws[0]!, someMessage);
const baseline = await p99(plainRead);
// as the service does: a label or a search term is first counted (up to a bound) to pick how it is read
const list = (f: ConversationFilter) => async () =>
  conversationsKeyset(db, ws[0]!, {
    ...f,
    ...(f.label ? { labelPlan: await labelPlan(db, ws[0]!, f.label) } : {}),
    ...(f.q ? await qMatches(db, ws[0]!, f.q) : {}),
    limit: 20,
  });
const scenarios: [string, () => unknown][] = [
  ["conversations: no filter", list({})],
  ["conversations: status=open", list({ status: "open" })],
  ["conversations: needsReply", list({ needsReply: true })],
  ["conversations: assignee none", list({ assigned: false })],
  ["conversations: assignee a member", list({ assigneeId: user })],
  ["conversations: sessionId", list({ sessionId: "s1" })],
  ["conversations: label", list({ label: "vip" })],
  ["conversations: q, a phone part matching one", list({ q: "00004242" })],
  ["conversations: q, a phone part matching most", list({ q: "9198" })],
  ["conversations: q, a name part matching 11", list({ q: "tomer 4242" })],
  ["conversations: q, 2 characters matching few", list({ q: "zq" })],
  ["conversations: q, 1 character matching none", list({ q: "#" })],
  ["conversations: q, 1 character matching most", list({ q: "e" })],
  ["conversations: keyset page deep in the list", () => conversationsKeyset(db, ws[0]!, { limit: 20, before: { at: t0 + 1000 * 10, id: convIds[0]![1000]! } })],
  ["search: a rare word", () => searchMessageIds(db, ws[0]!, [`ref${MESSAGES / 2}`], { limit: 20 })],
  ["search: a common word", () => searchMessageIds(db, ws[0]!, ["refund"], { limit: 20 })],
  ["search: two common words", () => searchMessageIds(db, ws[0]!, ["refund", "shoes"], { limit: 20 })],
];
const rows: Row[] = [];
for (const [scenario, fn] of scenarios) {
  const t = await p99(fn);
  console.log(`${scenario}: p99 ${t.toFixed(3)} ms (plain indexed read ${baseline.toFixed(3)} ms)`);
  rows.push({ scenario: `${scenario} (p99)`, parley: t, baseline, ratio: baseline / t, unit: "ms", baselineWhat: "one message by id", goal: "< 50 ms p99", met: t < 50, lowerIsBetter: true });
}
report("inbox", `The inbox on ${MESSAGES.toLocaleString("en")} messages and ${CONVERSATIONS.toLocaleString("en")} conversations, two workspaces (in process, in-memory SQLite; seeded in ${seedSeconds.toFixed(0)} s)`, rows);
await rt.close();
