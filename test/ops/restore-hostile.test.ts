import { beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate.ts";
import { openStore } from "../../src/db/open.ts";
import { backup, BackupError } from "../../src/ops/backup.ts";
import { restore, restoreLimits } from "../../src/ops/restore.ts";
import { BUN, ROOT } from "../helpers/process.ts";

// A restore unpacks whatever archive it is handed. One a backup never writes (links, devices,
// a server's pid or URL file, a WAL, paths leaving the data dir, a broken manifest or database)
// must be refused as a whole, with nothing left behind and nothing written outside.

const root = mkdtempSync(join(tmpdir(), "parley-restore-hostile-"));
let manifest: Buffer;
let database: Buffer;

type Entry = { name: string; type?: "0" | "1" | "2" | "3" | "5" | "6"; data?: Uint8Array | string; link?: string; mode?: number };

/** A ustar archive, gzipped, entry by entry as given (a real tar tool would not write most of these). */
function tarball(entries: Entry[]): Uint8Array {
  const blocks: Uint8Array[] = [];
  const octal = (n: number, width: number) => n.toString(8).padStart(width - 1, "0") + "\0";
  for (const e of entries) {
    const data = typeof e.data === "string" ? new TextEncoder().encode(e.data) : (e.data ?? new Uint8Array());
    const h = new Uint8Array(512);
    const put = (s: string, at: number) => h.set(new TextEncoder().encode(s), at);
    put(e.name, 0);
    put(octal(e.mode ?? 0o644, 8), 100);
    put(octal(0, 8), 108);
    put(octal(0, 8), 116);
    put(octal(e.type && e.type !== "0" ? 0 : data.length, 12), 124);
    put(octal(1_700_000_000, 12), 136);
    put("        ", 148);
    put(e.type ?? "0", 156);
    put(e.link ?? "", 157);
    put("ustar\x0000", 257);
    put(octal(h.reduce((a, b) => a + b, 0), 7), 148);
    blocks.push(h);
    if (!e.type || e.type === "0") {
      blocks.push(data);
      if (data.length % 512) blocks.push(new Uint8Array(512 - (data.length % 512)));
    }
  }
  blocks.push(new Uint8Array(1024));
  return Bun.gzipSync(Buffer.concat(blocks));
}

const base = (): Entry[] => [
  { name: "parley-backup.json", data: manifest },
  { name: "parley.db", data: database },
];

let n = 0;
async function attempt(entries: Entry[] | Uint8Array): Promise<{ error: unknown; dataDir: string }> {
  const file = join(root, `a${++n}.tar.gz`);
  await Bun.write(file, entries instanceof Uint8Array ? entries : tarball(entries));
  const dataDir = join(root, `restored-${n}`);
  try {
    await restore(file, dataDir);
    return { error: null, dataDir };
  } catch (error) {
    return { error, dataDir };
  }
}

beforeAll(async () => {
  const dataDir = join(root, "source");
  mkdirSync(dataDir);
  const db = openStore({ dataDir });
  await migrate(db);
  await db.close();
  const file = join(root, "good.tar.gz");
  await backup(dataDir, file);
  const x = join(root, "good");
  const { extract } = await import("tar");
  await Bun.write(join(x, ".keep"), "");
  await extract({ file, cwd: x });
  manifest = readFileSync(join(x, "parley-backup.json"));
  database = readFileSync(join(x, "parley.db"));
});

test("the hand-made archive of a real backup restores (the baseline of the refusals below)", async () => {
  const { error, dataDir } = await attempt([...base(), { name: "secrets.json", data: "{}", mode: 0o644 }, { name: "media/", type: "5", mode: 0o755 }, { name: "media/w/f", data: "x" }]);
  expect(error).toBeNull();
  expect(readdirSync(dataDir).sort()).toEqual(["media", "parley.db", "secrets.json"]);
  expect(statSync(join(dataDir, "secrets.json")).mode & 0o777).toBe(0o600); // whatever the archive said
});

test("only the backup's own layout is accepted: another top-level file, a file loose in media/, a folder in imports/ are refused as a whole", async () => {
  for (const hostile of [
    { name: "notes.txt", data: "x" },
    { name: "bin/run.sh", data: "#!/bin/sh" },
    { name: "media/loose", data: "x" },
    { name: "media/w/deeper/f", data: "x" },
    { name: "imports/sub/f.csv", data: "x" },
    { name: ".hidden", data: "x" },
  ] as Entry[]) {
    const { error, dataDir } = await attempt([...base(), hostile]);
    expect({ name: hostile.name, error: error instanceof BackupError }).toEqual({ name: hostile.name, error: true });
    expect((error as Error).message).toContain(hostile.name);
    expect(readdirSync(dataDir)).toEqual([]);
  }
});

test("no mode bits beyond read-write for the owner: a setuid or world-writable file is restored 0600, folders 0700", async () => {
  const { error, dataDir } = await attempt([
    ...base(),
    { name: "secrets.json", data: "{}", mode: 0o4755 },
    { name: "media/", type: "5", mode: 0o777 },
    { name: "media/w/", type: "5", mode: 0o3777 },
    { name: "media/w/f", data: "x", mode: 0o6777 },
    { name: "imports/a.csv", data: "phone\n", mode: 0o777 },
  ]);
  expect(error).toBeNull();
  for (const f of ["parley.db", "secrets.json", "media/w/f", "imports/a.csv"]) expect(`${f} ${(statSync(join(dataDir, f)).mode & 0o7777).toString(8)}`).toBe(`${f} 600`);
  for (const d of ["media", "media/w", "imports"]) expect(`${d} ${(statSync(join(dataDir, d)).mode & 0o7777).toString(8)}`).toBe(`${d} 700`);
});

test("an archive that unpacks to far more entries than its size allows is refused before they are written", async () => {
  const many: Entry[] = Array.from({ length: 12_000 }, (_, i) => ({ name: `imports/f${i}.csv`, data: "" }));
  const archive = tarball([...base(), ...many]);
  expect(restoreLimits(archive.length).maxEntries).toBeLessThan(12_000);
  const { error, dataDir } = await attempt(archive);
  expect(error).toBeInstanceOf(BackupError);
  expect((error as Error).message).toMatch(/more than \d+ entries/);
  expect(readdirSync(dataDir)).toEqual([]);
}, 60_000);

test("size caps follow the archive's size: a gigabyte from a few megabytes is over, a real backup's ratio is not", () => {
  const small = restoreLimits(1.9 * 1024 * 1024);
  expect(small.maxBytes).toBeLessThan(1024 ** 3);
  expect(small.maxEntries).toBeLessThan(100_000);
  const big = restoreLimits(2 * 1024 ** 3); // 2 GiB of media and a compact database
  expect(big.maxBytes).toBeGreaterThan(20 * 1024 ** 3);
  expect(big.maxEntries).toBeGreaterThan(1_000_000);
});

test("links, devices and FIFOs are refused, also links that stay inside the data dir", async () => {
  const cases: Entry[] = [
    { name: "secrets.json", type: "2", link: "parley.db" },
    { name: "media", type: "2", link: "/etc" },
    { name: "media/w/f", type: "2", link: "../../../../etc/passwd" },
    { name: "hard", type: "1", link: "parley.db" },
    { name: "hard2", type: "1", link: "/etc/passwd" },
    { name: "null", type: "3" },
    { name: "fifo", type: "6" },
  ];
  for (const hostile of cases) {
    const { error, dataDir } = await attempt([...base(), hostile]);
    expect({ name: hostile.name, error: error instanceof BackupError }).toEqual({ name: hostile.name, error: true });
    expect(readdirSync(dataDir)).toEqual([]); // nothing restored
  }
});

test("paths that leave the data dir are refused and nothing is written outside", async () => {
  for (const name of ["../escaped.txt", "media/../../escaped.txt", join(root, "absolute.txt")]) {
    const { error, dataDir } = await attempt([...base(), { name, data: "pwned" }]);
    expect({ name, error: error instanceof BackupError }).toEqual({ name, error: true });
    expect(readdirSync(dataDir)).toEqual([]);
  }
  expect(existsSync(join(root, "escaped.txt"))).toBe(false);
  expect(existsSync(join(root, "absolute.txt"))).toBe(false);
});

test("a running server's files are refused: a pid file would block the start, a URL file would send operator tokens elsewhere", async () => {
  for (const hostile of [
    { name: "parley.pid", data: "1\n" },
    { name: "parley.url", data: JSON.stringify({ pid: 1, url: "http://attacker.example" }) },
    { name: "parley.db-wal", data: "x".repeat(1000) },
    { name: "./parley.db-shm", data: "x" },
  ]) {
    const { error, dataDir } = await attempt([...base(), hostile]);
    expect({ name: hostile.name, error: error instanceof BackupError }).toEqual({ name: hostile.name, error: true });
    expect((error as Error).message).toContain(hostile.name);
    expect(readdirSync(dataDir)).toEqual([]);
  }
});

test("a truncated archive, a broken manifest and a corrupt database are refused with a reason", async () => {
  const whole = tarball(base());
  const cut = await attempt(whole.subarray(0, Math.floor(whole.length / 2)));
  expect(cut.error).toBeInstanceOf(BackupError);
  expect(readdirSync(cut.dataDir)).toEqual([]);

  const badManifest = await attempt([{ name: "parley-backup.json", data: "{not json" }, base()[1]!]);
  expect(badManifest.error).toBeInstanceOf(BackupError);
  expect((badManifest.error as Error).message).toContain("not a backup manifest");

  const garbage = await attempt([base()[0]!, { name: "parley.db", data: "not a database at all".repeat(300) }]);
  expect(garbage.error).toBeInstanceOf(BackupError);
  expect((garbage.error as Error).message).toContain("failed its integrity check");

  const torn = Buffer.from(database);
  for (let page = 3; page * 4096 < torn.length; page += 5) torn.set([0x0d, 0, 0, 0xff, 0xff], page * 4096);
  const corrupt = await attempt([base()[0]!, { name: "parley.db", data: torn }]);
  expect(corrupt.error).toBeInstanceOf(BackupError);
  expect((corrupt.error as Error).message).toContain("failed its integrity check");
  expect(readdirSync(corrupt.dataDir)).toEqual([]);
});

test("parley restore says why in one line and exits 1, never a stack trace", async () => {
  const file = join(root, "cli.tar.gz");
  await Bun.write(file, tarball([{ name: "parley-backup.json", data: "null" }, base()[1]!]));
  const p = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), "restore", file, "-d", join(root, "cli-dir")], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const err = p.stderr.toString().trim();
  expect(p.exitCode).toBe(1);
  expect(err.split("\n")).toHaveLength(1);
  expect(err).toContain("not a backup manifest");
});

test("parley backup refuses a target it cannot write before doing any work, in one line", async () => {
  const dataDir = join(root, "source");
  mkdirSync(join(dataDir, "media", "w"), { recursive: true });
  const cases: [string, string][] = [
    [join(dataDir, "media", "inside.tar.gz"), "inside the data dir's media/"],
    [root, "is a directory"],
    [join(root, "no", "such", "dir", "b.tar.gz"), "no directory"],
  ];
  for (const [file, why] of cases) {
    const p = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), "backup", file, "-d", dataDir], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const err = p.stderr.toString().trim();
    expect({ file, code: p.exitCode, lines: err.split("\n").length, why: err.includes(why) }).toEqual({ file, code: 1, lines: 1, why: true });
  }
  expect(readdirSync(join(dataDir, "media"))).toEqual(["w"]); // no scratch left behind
  // beside the database is fine (it is skipped, not archived into itself)
  await backup(dataDir, join(dataDir, "beside.tar.gz"));
  expect(existsSync(join(dataDir, "beside.tar.gz"))).toBe(true);
});

test("restore writes nothing beside the data dir: its parent may belong to root (systemd's /var/lib)", async () => {
  const parent = join(root, "var-lib");
  mkdirSync(join(parent, "parley"), { recursive: true });
  const file = join(root, "for-parent.tar.gz");
  await Bun.write(file, tarball([...base(), { name: "secrets.json", data: "{}" }]));
  const seen: string[] = [];
  const { watch } = await import("node:fs");
  const watcher = watch(parent, (_event, name) => void (name && seen.push(String(name))));
  try {
    await restore(file, join(parent, "parley"));
    await Bun.sleep(50); // let the watcher report
  } finally {
    watcher.close();
  }
  expect(seen.filter((n) => n !== "parley")).toEqual([]);
  expect(readdirSync(join(parent, "parley")).sort()).toEqual(["parley.db", "secrets.json"]);
});
