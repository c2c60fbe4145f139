import { expect, test } from "bun:test";
import { join, relative } from "node:path";

// The message search index (SQLite) has no insert trigger: the code that inserts a message writes
// its index entry (src/modules/messages/fts-repo.ts). A source scan keeps every insert on that path.

const ROOT = join(import.meta.dir, "../../..");
const INSERT = /INSERT\s+INTO\s+"?messages"?\s*\(|\.insert\(\s*messages\s*\)/i;

async function sources(dir: string): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  for await (const f of new Bun.Glob("**/*.{ts,tsx}").scan({ cwd: join(ROOT, dir) })) {
    const path = relative(ROOT, join(ROOT, dir, f));
    if (path.startsWith("bench/.cache/")) continue;
    out.push({ path, text: await Bun.file(join(ROOT, path)).text() });
  }
  return out;
}

test("in src/, messages are inserted only by the messages repo, and each insert function's callers write the index", async () => {
  const src = await sources("src");
  const inserting = src.filter((f) => INSERT.test(f.text)).map((f) => f.path).sort();
  expect(inserting).toEqual(["src/modules/messages/repo.ts", "src/modules/messages/send-repo.ts"]);
  // insertMessage writes the entry itself
  const repo = src.find((f) => f.path === "src/modules/messages/repo.ts")!.text;
  expect(repo).toMatch(/export async function insertMessage[\s\S]*?indexMessageText\(db, \[row\.id\]\)[\s\S]*?\n}/);
  // the send group's inserts leave it to their callers, which hand the id to the group's index write
  const callers = src.filter((f) => /\binsert(Queued|Scheduled)Message\(/.test(f.text) && f.path !== "src/modules/messages/send-repo.ts");
  expect(callers.length).toBeGreaterThan(0);
  for (const f of callers) {
    const calls = f.text.match(/\binsert(Queued|Scheduled)Message\(/g)!.length;
    const indexed = (f.text.match(/\bindexTextLater\(/g) ?? []).length;
    expect(indexed, `${f.path} inserts messages without indexTextLater`).toBeGreaterThanOrEqual(calls);
  }
});

test("tests and benches that insert messages by hand write the index too", async () => {
  // files that only hold such a statement as text (this one; the read cache's parser of written tables)
  const textOnly = new Set(["test/modules/messages/search-index-guard.test.ts", "test/db/read-cache.test.ts"]);
  const files = [...(await sources("test")), ...(await sources("bench"))].filter((f) => INSERT.test(f.text) && !textOnly.has(f.path));
  expect(files.length).toBeGreaterThan(0);
  const missing = files.filter((f) => !/\b(indexMessageText|reindexAllMessageText)\(/.test(f.text)).map((f) => f.path);
  expect(missing).toEqual([]);
});
