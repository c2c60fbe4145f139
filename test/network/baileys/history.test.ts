import { afterAll, expect, test } from "bun:test";
import { proto } from "baileys";
import { PROCESSABLE_HISTORY_TYPES } from "baileys/lib/Defaults/index.js";
import { loadConfig } from "../../../src/config.ts";
import { historyFilter, SMALL_HISTORY_BYTES } from "../../../src/network/baileys/history.ts";
import { harness, type Harness } from "./harness.ts";

const T = proto.HistorySync.HistorySyncType;
const MB = 1024 * 1024;

const open: Harness[] = [];
afterAll(async () => {
  for (const h of open) await h.rt.close().catch(() => {});
});

test("off (the default): names and the small parts with the LID mappings only; the recent chats, the full history and on-demand parts are not downloaded", () => {
  expect(loadConfig({}).waHistorySync).toBe("off");
  const f = historyFilter({ mode: "off", maxBytes: 0 });
  expect(f({ syncType: T.PUSH_NAME, fileLength: 20_000 })).toBe(true);
  expect(f({ syncType: T.NON_BLOCKING_DATA, fileLength: 4_000 })).toBe(true);
  expect(f({ syncType: T.INITIAL_BOOTSTRAP, initialHistBootstrapInlinePayload: new Uint8Array([1, 2, 3]) })).toBe(true);
  expect(f({ syncType: T.INITIAL_BOOTSTRAP, fileLength: SMALL_HISTORY_BYTES })).toBe(true);
  expect(f({ syncType: T.INITIAL_BOOTSTRAP, fileLength: 40 * MB })).toBe(false);
  expect(f({ syncType: T.RECENT, fileLength: 1_000 })).toBe(false);
  expect(f({ syncType: T.FULL, fileLength: 1_000 })).toBe(false);
  expect(f({ syncType: T.ON_DEMAND, fileLength: 1_000 })).toBe(false);
  // baileys' probes at connect (no size): it does not wait for a history sync (RECENT says no),
  // and it does not warn that every kind is refused (which costs it the LID mappings)
  expect(f({ syncType: T.RECENT })).toBe(false);
  expect(PROCESSABLE_HISTORY_TYPES.some((syncType: number) => f({ syncType }))).toBe(true);
});

test("recent: the recent chats too, until the link's byte budget is spent; never the full history", () => {
  const f = historyFilter({ mode: "recent", maxBytes: 10 * MB });
  expect(f({ syncType: T.RECENT })).toBe(true);
  expect(f({ syncType: T.INITIAL_BOOTSTRAP, fileLength: 4 * MB })).toBe(true);
  expect(f({ syncType: T.RECENT, fileLength: 5 * MB })).toBe(true);
  // 9 MB spent: a 2 MB chunk would pass the budget
  expect(f({ syncType: T.RECENT, fileLength: 2 * MB })).toBe(false);
  expect(f({ syncType: T.RECENT, fileLength: 1 * MB })).toBe(true);
  expect(f({ syncType: T.RECENT })).toBe(false);
  expect(f({ syncType: T.FULL, fileLength: 1 })).toBe(false);
  // the small kinds are not counted against the budget
  expect(f({ syncType: T.PUSH_NAME, fileLength: 100 })).toBe(true);
  expect(() => loadConfig({ waHistorySync: "all" })).toThrow(/waHistorySync/);
  expect(loadConfig({ waHistorySync: "recent", waHistorySyncMaxMb: "32" })).toMatchObject({ waHistorySync: "recent", waHistorySyncMaxMb: 32 });
});

test("the driver hands baileys the filter (no full sync), the same one across reconnects so the budget is the link's", async () => {
  const h = await harness({ driver: { watchdogMs: 0, history: { mode: "recent", maxBytes: 3 * MB } } });
  open.push(h);
  const { sock } = await h.linkedSession();
  expect(sock.config.syncFullHistory).toBe(false);
  expect(sock.config.shouldSyncHistoryMessage({ syncType: T.RECENT, fileLength: 2 * MB })).toBe(true);
  const before = h.sockets.length;
  sock.close(428);
  while (h.sockets.length === before) await Bun.sleep(2);
  expect(h.last().config.shouldSyncHistoryMessage).toBe(sock.config.shouldSyncHistoryMessage);
  expect(h.last().config.shouldSyncHistoryMessage({ syncType: T.RECENT, fileLength: 2 * MB })).toBe(false);
});
