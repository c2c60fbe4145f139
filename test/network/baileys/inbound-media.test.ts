import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { downloadToFile, MediaTooLarge } from "../../../src/network/baileys/inbound-media.ts";

const dir = () => join(mkdtempSync(join(tmpdir(), "parley-dl-")), "incoming");

async function* chunks(n: number, size: number) {
  for (let i = 0; i < n; i++) yield new Uint8Array(size).fill(i);
}

test("streams to a file chunk by chunk and returns its size", async () => {
  const d = dir();
  const { file, size } = await downloadToFile(async () => chunks(4, 1000), { dir: d, name: "a", cap: 10_000, declared: 4000 });
  expect(size).toBe(4000);
  const bytes = await Bun.file(file).bytes();
  expect(bytes.length).toBe(4000);
  expect(bytes[3500]).toBe(3);
});

test("a declared size over the cap is refused before the download starts", async () => {
  let opened = false;
  const d = dir();
  const err = await downloadToFile(async () => ((opened = true), chunks(1, 1)), { dir: d, name: "b", cap: 100, declared: 101 }).catch((e) => e);
  expect(err).toBeInstanceOf(MediaTooLarge);
  expect(opened).toBe(false);
});

test("bytes past the cap (whatever was declared) cut the download and leave no file", async () => {
  const d = dir();
  const err = await downloadToFile(async () => chunks(10, 100), { dir: d, name: "c", cap: 450, declared: 10 }).catch((e) => e);
  expect(err).toBeInstanceOf(MediaTooLarge);
  expect(err.size).toBe(500);
  expect(existsSync(join(d, "c"))).toBe(false);
  expect(readdirSync(d)).toEqual([]);
});

test("a failing stream leaves no file", async () => {
  const d = dir();
  async function* broken() {
    yield new Uint8Array(10);
    throw new Error("socket hang up");
  }
  await expect(downloadToFile(async () => broken(), { dir: d, name: "d", cap: 1000 })).rejects.toThrow("hang up");
  expect(readdirSync(d)).toEqual([]);
});

test("download files nobody took over are swept after an hour (at most one sweep an hour)", async () => {
  const { InboundHandler } = await import("../../../src/network/baileys/inbound.ts");
  const { DriverEmitter } = await import("../../../src/network/emitter.ts");
  const { silentLogger } = await import("../../../src/log.ts");
  const { utimesSync, writeFileSync, mkdirSync } = await import("node:fs");
  const dataDir = mkdtempSync(join(tmpdir(), "parley-sweep-"));
  const d = join(dataDir, "media", ".incoming");
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, "old"), "x");
  writeFileSync(join(d, "new"), "y");
  const twoHoursAgo = (Date.now() - 2 * 3_600_000) / 1000;
  utimesSync(join(d, "old"), twoHoursAgo, twoHoursAgo);
  const handler = new InboundHandler({ log: silentLogger, dataDir, emitter: new DriverEmitter() });
  expect(await handler.sweep()).toBe(1);
  expect(readdirSync(d)).toEqual(["new"]);
  expect(await handler.sweep()).toBe(0);
});
