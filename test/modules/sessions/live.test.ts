import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimDriver } from "../../../src/network/sim/driver.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { freshPostgres, testEngine } from "../../helpers/postgres.ts";
import { eventually, linkSession, newSession, recordEvents, statusOf } from "./helpers.ts";

// `live`: whether a session's link is open now, beside `status` (which stays `connected` through
// a restart). Restarts in one process, as in restore.test.ts: the same database and sim data dir.

function opener(dataDir: string) {
  const pg = testEngine === "postgres" ? freshPostgres() : undefined;
  return async (gapMs = 0) => {
    const databaseUrl = pg ? (await pg).url : undefined;
    const sim = new SimDriver({ latencyMs: 1, dataDir });
    return createTestApp({ config: { dataDir, sessionRestoreGapMs: gapMs, ...(databaseUrl ? { databaseUrl } : {}) }, fileDb: true, simDriver: sim }) as Promise<TestApp>;
  };
}

test("a linked session reads live; a drop or a disconnect reads not live; a never-linked one neither", async () => {
  const t = await opener(mkdtempSync(join(tmpdir(), "parley-live-")))();
  await t.services.start();
  const ws = await createWorkspace(t);
  const a = await newSession(t, ws, "a");
  const b = await newSession(t, ws, "b");
  expect(await statusOf(t, ws, a)).toMatchObject({ status: "disconnected", connected: false, live: false });
  await linkSession(t, ws, a, "919811111111");
  await linkSession(t, ws, b, "919822222222");
  await eventually(async () => expect(await statusOf(t, ws, a)).toMatchObject({ status: "connected", connected: true, live: true }));
  // the list and the single read say the same
  const list = await t.request("GET", "/api/v1/chatapp", { token: ws.owner.token });
  expect(list.body.data.map((s: { live: boolean }) => s.live)).toEqual([true, true]);
  expect((await t.request("GET", `/api/v1/chatapp/${b}`, { token: ws.owner.token })).body.data.live).toBe(true);

  t.sim.drop(a, 600_000);
  await eventually(async () => expect(await statusOf(t, ws, a)).toMatchObject({ status: "disconnected", lastDisconnectReason: "connection_lost", live: false }));
  expect((await t.request("POST", `/api/v1/chatapp/${b}/disconnect`, { token: ws.owner.token })).status).toBe(200);
  expect(await statusOf(t, ws, b)).toMatchObject({ status: "disconnected", live: false });

  // another workspace never sees them
  const other = await createWorkspace(t);
  expect((await t.request("GET", `/api/v1/chatapp/${a}/status`, { token: other.owner.token })).status).toBe(404);
  await t.close();
});

test("after a restart a connected session reads connected but not live until its link is back, then live, with a session_status event", async () => {
  const open = opener(mkdtempSync(join(tmpdir(), "parley-live-")));
  let t = await open();
  await t.services.start();
  const ws = await createWorkspace(t);
  const first = await newSession(t, ws, "first");
  const second = await newSession(t, ws, "second");
  await linkSession(t, ws, first, "919811111111");
  await linkSession(t, ws, second, "919822222222");
  await eventually(async () => expect((await statusOf(t, ws, second)).live).toBe(true));
  await t.close();

  // a long gap between restored sessions: the second waits 2-10 s for its turn
  t = await open(10_000);
  const events = recordEvents(t);
  await t.services.start();
  expect(await statusOf(t, ws, second)).toMatchObject({ status: "connected", connected: true, phoneNumber: "919822222222", live: false });
  // asked every 250 ms, under the member's rate limit
  const liveSoon = async (id: string) => {
    for (const deadline = Date.now() + 15_000; !(await statusOf(t, ws, id)).live; await Bun.sleep(250)) if (Date.now() > deadline) throw new Error(`${id} never live`);
  };
  await liveSoon(first);
  await liveSoon(second);
  // no status change was announced (nothing was unlinked), only that the links are live again
  // (the event is told once its transaction commits: a read may see the link live a moment before)
  const statuses = () => events.filter((e) => e.event.startsWith("session_"));
  await eventually(() => expect(statuses().map((e) => e.event)).toEqual(["session_status", "session_status"]));
  expect(statuses().map((e) => e.data)).toContainEqual({ sessionId: second, status: "connected", phoneNumber: "919822222222", reason: null, live: true });
  expect(statuses().every((e) => e.workspaceId === ws.id)).toBe(true);
  await t.close();
}, 30_000);
