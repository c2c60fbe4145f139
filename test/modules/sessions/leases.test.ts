import { afterEach, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { acquireLease, leaseHolder, liveLeases } from "../../../src/modules/sessions/lease-repo.ts";
import { sessionCredentialStore } from "../../../src/modules/sessions/credentials.ts";
import { readKeys } from "../../../src/modules/sessions/keys-repo.ts";
import { linkSession, newSession, statusOf } from "./helpers.ts";

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

test("a user's connect takes the session's lease for this node; the epoch grows with every new holder", async () => {
  t = await createTestApp();
  const ws = await createWorkspace(t);
  const id = await newSession(t, ws);
  await linkSession(t, ws, id);
  const first = await leaseHolder(t.deps.db, id);
  expect(first?.nodeId).toBe(t.deps.config.nodeId);
  expect(t.deps.leases.usable(id)).toBe(true);
  // another node takes it over (its lease expired): a new epoch
  const now = Date.now();
  expect(await acquireLease(t.deps.db, { sessionId: id, nodeId: "other", now, expiresAt: now + 10_000, force: false })).toBeNull();
  const epoch = await acquireLease(t.deps.db, { sessionId: id, nodeId: "other", now, expiresAt: now + 10_000, force: true });
  expect(epoch).toBe(first!.epoch + 1);
  expect((await liveLeases(t.deps.db, now)).map((l) => l.nodeId)).toEqual(["other"]);
});

test("fencing: after another node took the session, the old holder's credential, key and wipe writes do nothing and close its link", async () => {
  t = await createTestApp();
  const ws = await createWorkspace(t);
  const id = await newSession(t, ws);
  await linkSession(t, ws, id);
  const fence = t.deps.leases.fence(id)!;
  let fenced = 0;
  const store = sessionCredentialStore(t.deps, id, () => true, { fence, fenced: () => fenced++ });
  await store.setKeys([{ type: "pre-key", id: "1", value: '"mine"' }]);
  expect(fenced).toBe(0);
  expect((await store.getKeys("pre-key", ["1"]))["1"]).toBe('"mine"');
  const credsBefore = (await t.deps.db.prepare<{ c: string }>("SELECT credentials AS c FROM chat_sessions WHERE id = ?").get(id))!.c;

  // a takeover by another node
  const now = Date.now();
  await acquireLease(t.deps.db, { sessionId: id, nodeId: "node-b", now, expiresAt: now + 10_000, force: true });

  await store.setKeys([{ type: "pre-key", id: "1", value: '"stale"' }, { type: "pre-key", id: "2", value: '"stale"' }]);
  await store.save('{"stale":true}');
  await store.clearKeys();
  expect(fenced).toBe(3);
  const keys = await readKeys(t.deps.db, id, "pre-key", ["1", "2"]);
  expect([...keys.keys()]).toEqual(["1"]);
  expect((await store.getKeys("pre-key", ["1"]))["1"]).toBe('"mine"');
  expect((await t.deps.db.prepare<{ c: string }>("SELECT credentials AS c FROM chat_sessions WHERE id = ?").get(id))!.c).toBe(credsBefore);
});

test("a stale holder's credentials event is refused and its link closes; the session row keeps the new holder's link", async () => {
  t = await createTestApp();
  const ws = await createWorkspace(t);
  const id = await newSession(t, ws);
  await linkSession(t, ws, id);
  const credsBefore = (await t.deps.db.prepare<{ c: string }>("SELECT credentials AS c FROM chat_sessions WHERE id = ?").get(id))!.c;
  const now = Date.now();
  await acquireLease(t.deps.db, { sessionId: id, nodeId: "node-b", now, expiresAt: now + 10_000, force: true });
  expect(t.sim.stateOf(id)).toBe("connected");
  // the network hands this (stale) node new credentials, then logs it out: neither is written
  (t.sim as unknown as { emitter: { emit(e: unknown): void } }).emitter.emit({ type: "credentials", sessionId: id, credentials: "simcred_stale" });
  await t.services.sessions.settled();
  await Bun.sleep(20);
  expect((await t.deps.db.prepare<{ c: string }>("SELECT credentials AS c FROM chat_sessions WHERE id = ?").get(id))!.c).toBe(credsBefore);
  expect(t.sim.stateOf(id)).toBeUndefined(); // the link is closed
  expect(t.services.sessions.isLive(id)).toBe(false);
  expect((await statusOf(t, ws, id)).status).toBe("connected"); // the new holder's state is left alone
});
