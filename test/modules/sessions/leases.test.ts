import { afterEach, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace } from "../../helpers/fixtures.ts";
import { acquireLease, leaseHolder, liveLeases } from "../../../src/modules/sessions/lease-repo.ts";
import { sessionCredentialStore } from "../../../src/modules/sessions/credentials.ts";
import { readKeys } from "../../../src/modules/sessions/keys-repo.ts";
import { linkSession, newSession, statusOf } from "./helpers.ts";
import { SimDriver } from "../../../src/network/sim/driver.ts";
import type { OutboundMessage } from "../../../src/network/driver.ts";

let t: TestApp;
afterEach(async () => {
  await t?.close();
}, 30_000);

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
}, 30_000);

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
}, 30_000);

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
}, 30_000);

/** Stalls one send (the first, or the first of a given text) until released. */
class StallingSim extends SimDriver {
  private gate: { text?: string; started: () => void; release: Promise<void> } | null = null;
  /** The next send (of `text`, if given) waits: `onNetwork` once it is on its way, `release` lets it go. */
  stallNext(text?: string): { onNetwork: Promise<void>; release: () => void } {
    let started!: () => void;
    const onNetwork = new Promise<void>((r) => (started = r));
    let release!: () => void;
    this.gate = { text, started, release: new Promise<void>((r) => (release = r)) };
    return { onNetwork, release };
  }
  override async send(sessionId: string, message: OutboundMessage) {
    if (this.gate && (this.gate.text === undefined || message.text === this.gate.text)) {
      const g = this.gate;
      this.gate = null;
      g.started();
      await g.release;
    }
    return super.send(sessionId, message);
  }
}

/** A test app on a StallingSim with pacing off, and one linked session. */
async function linkedOnStallingSim() {
  const sim = new StallingSim({ latencyMs: 1 });
  t = await createTestApp({ simDriver: sim, config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  const ws = await createWorkspace(t);
  const id = await newSession(t, ws);
  await linkSession(t, ws, id);
  return { sim, ws, id };
}

/** Runs the sender; once the stalled send is on the network, node-b takes the session's lease, then the send goes on. */
async function takenOverWhileSending(sessionId: string, onNetwork: Promise<void>, release: () => void): Promise<void> {
  const running = t.deps.jobs.runDue();
  await onNetwork;
  const now = Date.now();
  await acquireLease(t.deps.db, { sessionId, nodeId: "node-b", now, expiresAt: now + 10_000, force: true });
  release();
  await running;
}

test("a send whose session was taken over while it was on the network is not recorded as sent here, and the link closes", async () => {
  const { sim, ws, id } = await linkedOnStallingSim();
  const { onNetwork, release } = sim.stallNext();
  const sent = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: id, to: "919822222222", body: "in flight" } });
  expect(sent.status).toBe(202);
  await takenOverWhileSending(id, onNetwork, release);
  const row = (await t.deps.db.prepare<{ status: string; tok: string | null }>("SELECT status, sending_token AS tok FROM messages WHERE id = ?").get(sent.body.data.id))!;
  // left for the new holder: its resend carries the same client id, which the network recognises
  expect(row.status).toBe("queued");
  expect(sim.sent.length).toBe(1); // the network took it once
  expect(sim.stateOf(id)).toBeUndefined();
  expect(t.services.sessions.isLive(id)).toBe(false);
}, 30_000);

test("a node that cannot renew its leases closes its links before they can expire, and sends nothing", async () => {
  t = await createTestApp({ config: { sessionLeaseMs: 2_000 } });
  const ws = await createWorkspace(t);
  const id = await newSession(t, ws);
  await linkSession(t, ws, id);
  await t.services.start();
  await t.services.restored();
  expect(t.deps.leases.usable(id)).toBe(true);
  // the database stops taking the renewals
  const db = t.deps.db;
  const prepare = db.prepare.bind(db);
  (db as { prepare: typeof db.prepare }).prepare = ((sql: string) => {
    if (/UPDATE session_leases SET expires_at = \? WHERE node_id/.test(sql)) return { all: () => Promise.reject(new Error("database unreachable")), get: () => Promise.reject(new Error("x")), run: () => Promise.reject(new Error("x")) };
    return prepare(sql);
  }) as typeof db.prepare;
  const lease = (await leaseHolder(db, id))!;
  const expiresAt = (await db.prepare<{ e: number }>("SELECT expires_at AS e FROM session_leases WHERE session_id = ?").get(id))!.e;
  for (;;) {
    if (!t.services.sessions.isLive(id)) break;
    expect(Date.now()).toBeLessThan(expiresAt); // closed before the lease could expire
    await Bun.sleep(20);
  }
  expect(Date.now()).toBeLessThan(expiresAt);
  expect(t.sim.stateOf(id)).toBeUndefined();
  expect(t.deps.leases.usable(id)).toBe(false);
  expect(t.deps.leases.expiries).toBe(1);
  expect(lease.nodeId).toBe(t.deps.config.nodeId);
  (db as { prepare: typeof db.prepare }).prepare = prepare;
}, 30_000);

test("a batch of sends whose session was taken over mid-batch: none of its outcomes is recorded here (all left for the new holder), and the link closes", async () => {
  const { sim, ws, id } = await linkedOnStallingSim();
  const { onNetwork, release } = sim.stallNext("m2");
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: id, to: "919822222222", body: `m${i}` } });
    expect(r.status).toBe(202);
    ids.push(r.body.data.id);
  }
  await takenOverWhileSending(id, onNetwork, release);
  const rows = await Promise.all(ids.map(async (m) => (await t.deps.db.prepare<{ status: string; tok: string | null }>("SELECT status, sending_token AS tok FROM messages WHERE id = ?").get(m))!));
  // the first head went alone, before the batch; the batch (m1…m4) is left for the new holder,
  // whose resends carry the same client ids, which the network recognises
  expect(rows[0]!.status).toBe("sent");
  for (const r of rows.slice(1)) expect(r.status).toBe("queued");
  expect(sim.sent.map((s) => s.message.text)).toEqual(["m0", "m1", "m2", "m3", "m4"]); // the network took each once
  expect(sim.stateOf(id)).toBeUndefined();
  expect(t.services.sessions.isLive(id)).toBe(false);
}, 30_000);
