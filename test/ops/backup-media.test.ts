import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, mkdtempSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { list } from "tar";
import { backup } from "../../src/ops/backup.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../helpers/fixtures.ts";

// A backup taken while media come and go: a file being written belongs to a row not committed
// yet, a file whose change was refused is deleted. Neither is in the database copy, and neither
// may fail the backup (tar fails on a file that grows or vanishes while it reads the folder).

let t: TestApp;
let ws: TestWorkspace;
let mediaId: string;
const out = mkdtempSync(join(tmpdir(), "parley-backup-media-"));

beforeAll(async () => {
  // a backup archives the SQLite data dir; on PostgreSQL, `parley backup` refuses (test/ops/postgres-refusal.test.ts)
  t = await createTestApp({ fileDb: true, engine: "sqlite" });
  ws = await createWorkspace(t);
  const form = new FormData();
  form.append("file", new File([new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x34, 0x0a, ...new TextEncoder().encode("%%EOF\n")])], "note.pdf", { type: "application/pdf" }));
  const up = await t.request("POST", "/api/v1/media", { token: ws.owner.token, body: form });
  expect(up.status).toBe(201);
  mediaId = up.body.data.id;
});
afterAll(() => t.close());

const entries = async (file: string) => {
  const names: string[] = [];
  await list({ file, onReadEntry: (e) => void names.push(e.path) });
  return names;
};

test("SQLite data dir: a media file that vanished after the folder was listed does not fail the backup; the stored media are in it", async () => {
  const folder = join(t.deps.config.dataDir, "media", ws.id);
  // what tar meets when a refused change deletes its file between listing and reading: a name with nothing behind it
  symlinkSync(join(folder, "gone-already"), join(folder, "01990000-0000-7000-8000-000000000000"));
  const file = join(out, "vanished.tar.gz");
  await backup(t.deps.config.dataDir, file);
  const names = await entries(file);
  expect(names).toContain(`media/${ws.id}/${mediaId}`);
  expect(names.filter((n) => n.includes("01990000-0000-7000-8000-000000000000"))).toEqual([]);
  unlinkSync(join(folder, "01990000-0000-7000-8000-000000000000"));
});

test("SQLite data dir: files written and removed while backups run never fail one, and are not archived", async () => {
  const folder = join(t.deps.config.dataDir, "media", ws.id);
  mkdirSync(folder, { recursive: true });
  for (let i = 0; i < 200; i++) writeFileSync(join(folder, `orphan-${i}`), Buffer.alloc(50_000, 1));
  let writing = true;
  const writer = (async () => {
    for (let k = 0; writing; k++) {
      const f = join(folder, `in-progress-${k}`);
      for (let j = 0; j < 10 && writing; j++) {
        appendFileSync(f, Buffer.alloc(32_000, 2));
        await Bun.sleep(0);
      }
      unlinkSync(f);
    }
  })();
  try {
    for (let i = 0; i < 4; i++) {
      const file = join(out, `busy-${i}.tar.gz`);
      await backup(t.deps.config.dataDir, file);
      const names = await entries(file);
      expect(names).toContain(`media/${ws.id}/${mediaId}`);
      expect(names.filter((n) => n.includes("orphan-") || n.includes("in-progress-"))).toEqual([]);
    }
  } finally {
    writing = false;
    await writer;
  }
}, 60_000);

test("SQLite data dir: a data dir on its own disk: lost+found (root's, unreadable by the service user) is not archived", async () => {
  mkdirSync(join(t.deps.config.dataDir, "lost+found"), { recursive: true, mode: 0o700 });
  writeFileSync(join(t.deps.config.dataDir, "lost+found", "#1234"), "fsck leftovers");
  const file = join(out, "lost-found.tar.gz");
  await backup(t.deps.config.dataDir, file);
  expect((await entries(file)).filter((n) => n.startsWith("lost+found"))).toEqual([]);
});
