import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config.ts";
import { silentLogger } from "../../../src/log.ts";
import { parseWaVersion, resolveWaVersion, VERSION_CACHE_FILE, VERSION_CACHE_TTL_MS } from "../../../src/network/baileys/version.ts";

const dir = () => mkdtempSync(join(tmpdir(), "parley-waver-"));

test("waVersion: latest by default (fetched), `bundled` is baileys' own, a.b.c is that one, anything else stops start-up", async () => {
  const fetchLatest = async () => {
    throw new Error("must not fetch");
  };
  expect(await resolveWaVersion("bundled", { dataDir: dir(), log: silentLogger, fetchLatest })).toBeUndefined();
  expect(await resolveWaVersion("2.3000.1023223821", { dataDir: dir(), log: silentLogger, fetchLatest })).toEqual([2, 3000, 1023223821]);
  // unset is latest: fetched
  expect(await resolveWaVersion(undefined, { dataDir: dir(), log: silentLogger, fetchLatest: async () => ({ version: [2, 3000, 4] }) })).toEqual([2, 3000, 4]);
  expect(() => parseWaVersion("2.3000")).toThrow();
  expect(loadConfig({}).waVersion).toBe("latest");
  expect(loadConfig({ waVersion: "" }).waVersion).toBe("latest");
  expect(loadConfig({ waVersion: "bundled" }).waVersion).toBe("bundled");
  expect(() => loadConfig({ waVersion: "2.x" })).toThrow(/waVersion/);
  expect(() => loadConfig({ waWatchdogMs: 500 })).toThrow(/waWatchdogMs/);
  expect(loadConfig({}).waWatchdogMs).toBe(90_000);
});

test("latest: fetched once and cached in the data dir for a day; a failed fetch falls back to the cache, then to the bundled one", async () => {
  const d = dir();
  let now = 1_000_000;
  let calls = 0;
  let answer: () => Promise<{ version: [number, number, number]; error?: unknown }> = async () => ({ version: [2, 3000, 5] });
  const o = { dataDir: d, log: silentLogger, now: () => now, fetchLatest: () => (calls++, answer()) };
  expect(await resolveWaVersion("latest", o)).toEqual([2, 3000, 5]);
  expect(JSON.parse(readFileSync(join(d, VERSION_CACHE_FILE), "utf8"))).toEqual({ version: [2, 3000, 5], fetchedAt: now });
  // within the TTL: the cache answers, the network is not asked
  now += VERSION_CACHE_TTL_MS - 1;
  expect(await resolveWaVersion("latest", o)).toEqual([2, 3000, 5]);
  expect(calls).toBe(1);
  // past it: asked again; baileys reports a failure as `error` (with its bundled version): the stale cache wins
  now += 2;
  answer = async () => ({ version: [2, 2413, 1], error: new Error("fetch failed") });
  expect(await resolveWaVersion("latest", o)).toEqual([2, 3000, 5]);
  expect(calls).toBe(2);
  // no cache and no network: baileys' bundled version (undefined)
  const empty = dir();
  expect(await resolveWaVersion("latest", { ...o, dataDir: empty, fetchLatest: async () => Promise.reject(new Error("offline")) })).toBeUndefined();
  // a damaged cache is ignored
  writeFileSync(join(empty, VERSION_CACHE_FILE), "{nope");
  expect(await resolveWaVersion("latest", { ...o, dataDir: empty, fetchLatest: async () => ({ version: [2, 3000, 9] }) })).toEqual([2, 3000, 9]);
});

test("fresh (after the network refused the version): the cache is skipped, and a pinned version gives way to the fetched one", async () => {
  const d = dir();
  const now = 5_000_000;
  writeFileSync(join(d, VERSION_CACHE_FILE), JSON.stringify({ version: [2, 3000, 1], fetchedAt: now }));
  const o = { dataDir: d, log: silentLogger, now: () => now, fetchLatest: async () => ({ version: [2, 3000, 2] as [number, number, number] }) };
  expect(await resolveWaVersion("latest", o)).toEqual([2, 3000, 1]);
  expect(await resolveWaVersion("latest", { ...o, fresh: true })).toEqual([2, 3000, 2]);
  expect(JSON.parse(readFileSync(join(d, VERSION_CACHE_FILE), "utf8"))).toEqual({ version: [2, 3000, 2], fetchedAt: now });
  expect(await resolveWaVersion("2.2.2", { ...o, fresh: true })).toEqual([2, 3000, 2]);
  // a fresh fetch that fails keeps the cached one
  expect(await resolveWaVersion("latest", { ...o, fresh: true, fetchLatest: async () => Promise.reject(new Error("offline")) })).toEqual([2, 3000, 2]);
});

test("the driver connects with the resolved version", async () => {
  const { BaileysDriver } = await import("../../../src/network/baileys/driver.ts");
  const seen: unknown[] = [];
  const d = new BaileysDriver({
    log: silentLogger,
    version: async () => [2, 3000, 7],
    makeSocket: (c) => (seen.push(c.version), { ev: { on() {} }, ws: { on() {} }, end() {} }) as never,
  });
  await d.connect("s", { credentials: null });
  expect(seen).toEqual([[2, 3000, 7]]);
  await d.shutdown();
});
