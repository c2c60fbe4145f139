import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimDriver } from "../../../src/network/sim/driver.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { freshPostgres, testEngine } from "../../helpers/postgres.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { eventually, linkSession, newSession, statusOf } from "./helpers.ts";

// Restarts in one process: a runtime on a file database and a sim network that keeps its linked
// devices in the same data dir, closed and opened again as a restarted server would be.

/** A sim network that records every connect the session manager makes. */
class RecordingSim extends SimDriver {
  readonly connects: string[] = [];
  override async connect(sessionId: string, opts: { credentials: string | null }): Promise<void> {
    this.connects.push(sessionId);
    return super.connect(sessionId, opts);
  }
}

/** Opens the same database each time: the data dir's SQLite file, or one PostgreSQL database of the test's own. */
function opener(dataDir: string) {
  const pg = testEngine === "postgres" ? freshPostgres() : undefined;
  return async (gapMs = 0, sim = new RecordingSim({ latencyMs: 1, dataDir })) => {
    const databaseUrl = pg ? (await pg).url : undefined;
    return createTestApp({ config: { dataDir, sessionRestoreGapMs: gapMs, ...(databaseUrl ? { databaseUrl } : {}) }, fileDb: true, simDriver: sim }) as Promise<TestApp & { sim: RecordingSim }>;
  };
}

test("a session that dropped (connection_lost, still retrying) comes back connected after a restart; unlinked ones stay down", async () => {
  const open = opener(mkdtempSync(join(tmpdir(), "parley-restore-")));
  let t = await open();
  const ws = await createWorkspace(t);
  const dropped = await newSession(t, ws, "dropped");
  const unlinked = await newSession(t, ws, "unlinked");
  const neverLinked = await newSession(t, ws, "never-linked");
  await linkSession(t, ws, dropped, "919811111111");
  await linkSession(t, ws, unlinked, "919822222222");
  // a long reconnect: the server stops before the network comes back
  t.sim.drop(dropped, 600_000);
  await eventually(async () => expect(await statusOf(t, ws, dropped)).toMatchObject({ status: "disconnected", lastDisconnectReason: "connection_lost" }));
  expect((await t.request("POST", `/api/v1/chatapp/${unlinked}/disconnect`, { token: ws.owner.token })).status).toBe(200);
  // a pairing that failed offline: connection_lost too, but no number, so nothing to bring back
  await t.deps.db.prepare("UPDATE chat_sessions SET last_disconnect_reason = 'connection_lost', credentials = 'v1:x' WHERE id = ?").run(neverLinked);
  await t.close();

  t = await open();
  await t.services.start();
  await eventually(async () => expect(await statusOf(t, ws, dropped)).toMatchObject({ status: "connected", phoneNumber: "919811111111", lastDisconnectReason: null }));
  expect(t.sim.stateOf(dropped)).toBe("connected");
  expect(t.sim.connects).toEqual([dropped]);
  expect(await statusOf(t, ws, unlinked)).toMatchObject({ status: "disconnected", lastDisconnectReason: "user_request" });
  expect(await statusOf(t, ws, neverLinked)).toMatchObject({ status: "disconnected", lastDisconnectReason: "connection_lost" });
  await t.close();
});

test("restore opens sessions one after another with a gap, not all at once; stopping ends it early", async () => {
  const open = opener(mkdtempSync(join(tmpdir(), "parley-restore-")));
  let t = await open();
  const ws: TestWorkspace = await createWorkspace(t);
  const ids: string[] = [];
  for (const n of [1, 2, 3]) {
    const id = await newSession(t, ws, `s${n}`);
    await linkSession(t, ws, id, `91981111111${n}`);
    ids.push(id);
  }
  await t.close();

  t = await open(200);
  await t.services.start();
  // start-up does not wait for them (the first connect follows its reads of the store), and
  // the first gap has not passed yet: one connect so far
  expect(t.sim.connects.length).toBeLessThanOrEqual(1);
  await eventually(() => expect(t.sim.connects).toEqual([ids[0]!]));
  await eventually(() => expect(t.sim.connects).toEqual(ids));
  for (const id of ids) await eventually(async () => expect((await statusOf(t, ws, id)).status).toBe("connected"));
  await t.close();

  // a restore still pausing between sessions ends at shutdown (without waiting out the gap)
  t = await open(60_000);
  await t.services.start();
  await eventually(() => expect(t.sim.connects).toEqual([ids[0]!]));
  await t.close();
  expect(t.sim.connects).toEqual([ids[0]!]);
});
