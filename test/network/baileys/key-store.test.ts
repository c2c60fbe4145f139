import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { BufferJSON, initAuthCreds } from "baileys";
import { openSqliteStore } from "../../../src/db/sqlite.ts";
import type { DB } from "../../../src/db/store.ts";
import { loadAuthState } from "../../../src/network/baileys/auth-state.ts";
import { decryptCredentials, encryptCredentials, sessionCredentialStore } from "../../../src/modules/sessions/credentials.ts";
import { harness, KEY, until, type Harness } from "./harness.ts";

// Signal keys as rows of session_keys, sealed one by one, on a real SQLite file.

const open: Harness[] = [];
afterAll(async () => {
  for (const h of open) await h.rt.close().catch(() => {});
});

async function fileHarness(dataDir?: string) {
  const h = await harness({ fileDb: true, dataDir });
  open.push(h);
  return h;
}

/** Rows read through another connection to the file, as another process would. */
const fileRows = (db: Database, sessionId: string) =>
  db.query("SELECT type, id, value FROM session_keys WHERE session_id = ? ORDER BY type, id").all(sessionId) as { type: string; id: string; value: string }[];
const rows = async (db: DB, sessionId: string) =>
  (await db.prepare("SELECT type, id, value FROM session_keys WHERE session_id = ? ORDER BY type, id").all(sessionId)) as { type: string; id: string; value: string }[];

test("keys.set writes rows at once (sealed, one per key), deletes with null; creds are written only on creds.update", async () => {
  const h = await fileHarness();
  const { id, sock } = await h.linkedSession();
  const credsBefore = await h.rt.deps.db.prepare("SELECT credentials FROM chat_sessions WHERE id = ?").get(id) as { credentials: string };
  const keys = sock.config.auth.keys;
  await keys.set({ session: { "919800000001.0": Buffer.from("session-bytes") }, "pre-key": { "1": { public: Buffer.from([1]), private: Buffer.from([2]) }, "2": { public: Buffer.from([3]), private: Buffer.from([4]) } } });
  // durable the moment set returns: a second connection to the file (another process) sees them
  const other = new Database(join(h.dataDir, "parley.db"), { readonly: true });
  expect(fileRows(other, id).map((r) => `${r.type}/${r.id}`)).toEqual(["pre-key/1", "pre-key/2", "session/919800000001.0"]);
  // sealed: no key material in clear
  for (const r of fileRows(other, id)) expect(r.value).toStartWith("v1:");
  expect(fileRows(other, id).some((r) => r.value.includes("session-bytes"))).toBe(false);
  // the creds document was not rewritten by a key change
  expect(await h.rt.deps.db.prepare("SELECT credentials FROM chat_sessions WHERE id = ?").get(id)).toEqual(credsBefore);

  await keys.set({ "pre-key": { "1": null } });
  expect(fileRows(other, id).map((r) => `${r.type}/${r.id}`)).toEqual(["pre-key/2", "session/919800000001.0"]);
  expect(Buffer.from((await keys.get("session", ["919800000001.0"]))["919800000001.0"]).toString()).toBe("session-bytes");

  // creds.update: the document is rewritten (and only the document)
  sock.config.auth.creds.nextPreKeyId = 4242;
  sock.ev.emit("creds.update", { nextPreKeyId: 4242 });
  // written asynchronously now: wait for the write
  const nextPreKeyId = async () => {
    const after = (await h.rt.deps.db.prepare("SELECT credentials FROM chat_sessions WHERE id = ?").get(id)) as { credentials: string };
    return JSON.parse(decryptCredentials(KEY, id, after.credentials)).creds.nextPreKeyId as number;
  };
  await until(async () => (await nextPreKeyId()) === 4242, "creds written");
  expect(await nextPreKeyId()).toBe(4242);
  other.close();
});

test("a crash between two sets loses nothing already set; a restart reads the keys back", async () => {
  const h = await fileHarness();
  const { id, sock } = await h.linkedSession();
  await sock.config.auth.keys.set({ session: { a: Buffer.from("first") } });
  // the process dies here (no shutdown, no flush): only what is on disk counts
  const { db: disk } = openSqliteStore(join(h.dataDir, "parley.db"));
  expect((await rows(disk, id)).map((r) => r.id)).toEqual(["a"]);
  // a fresh store over the same file (the restarted process) reads the key back
  const store = sessionCredentialStore({ db: disk, secrets: { credentialKey: KEY } }, id, () => true);
  const doc = decryptCredentials(KEY, id, ((await disk.prepare("SELECT credentials FROM chat_sessions WHERE id = ?").get(id)) as { credentials: string }).credentials);
  const restored = await loadAuthState(doc, store);
  expect(restored.linked()).toBe(true);
  expect(Buffer.from((await restored.state.keys.get("session", ["a"]))["a"]!).toString()).toBe("first");
  await disk.close();
});

test("a restarted server restores the session with its keys", async () => {
  const h = await fileHarness();
  const { id, sock } = await h.linkedSession();
  await sock.config.auth.keys.set({ session: { peer: Buffer.from("kept") } });
  await h.rt.close();
  open.pop();
  const again = await fileHarness(h.dataDir);
  await again.rt.services.start();
  const s = await until(() => again.sockets[0], "the restored socket");
  expect(Buffer.from((await s.config.auth.keys.get("session", ["peer"]))["peer"]).toString()).toBe("kept");
  await until(async () => await again.rt.deps.db.prepare("SELECT 1 FROM chat_sessions WHERE id = ? AND status = 'connected'").get(id), "connected again");
});

test("an old single blob is migrated on first load: split into rows, the document rewritten without keys", async () => {
  const h = await fileHarness();
  const id = (await h.call("POST", "/api/v1/chatapp", { name: "old" })).body.data.id as string;
  const creds = initAuthCreds();
  Object.assign(creds, { me: { id: "919800000077:2@s.whatsapp.net" }, account: { details: Buffer.from([1]) } });
  const keys = { session: { "919800000001.0": Buffer.from("old-session") }, "pre-key": { "9": { public: Buffer.from([9]), private: Buffer.from([9]) } } };
  const blob = JSON.stringify({ v: 1, creds, keys }, BufferJSON.replacer);
  await h.rt.deps.db.prepare("UPDATE chat_sessions SET credentials = ?, phone_number = '919800000077' WHERE id = ?").run(encryptCredentials(KEY, id, blob), id);

  expect((await h.call("POST", `/api/v1/chatapp/${id}/connect`)).status).toBe(200);
  expect((await rows(h.rt.deps.db, id)).map((r) => `${r.type}/${r.id}`)).toEqual(["pre-key/9", "session/919800000001.0"]);
  const stored = await h.rt.deps.db.prepare("SELECT credentials FROM chat_sessions WHERE id = ?").get(id) as { credentials: string };
  const doc = JSON.parse(decryptCredentials(KEY, id, stored.credentials));
  expect(doc.v).toBe(2);
  expect(doc.keys).toBeUndefined();
  const s = h.last();
  expect(Buffer.from((await s.config.auth.keys.get("session", ["919800000001.0"]))["919800000001.0"]).toString()).toBe("old-session");
});

test("unlinking wipes the rows, and a late write of the old socket does not bring them back", async () => {
  const h = await fileHarness();
  const { id, sock } = await h.linkedSession();
  await sock.config.auth.keys.set({ session: { x: Buffer.from("x") } });
  expect(await rows(h.rt.deps.db, id)).toHaveLength(1);
  expect((await h.call("POST", `/api/v1/chatapp/${id}/disconnect`)).status).toBe(200);
  expect(await rows(h.rt.deps.db, id)).toEqual([]);
  await sock.config.auth.keys.set({ session: { late: Buffer.from("late") } });
  sock.ev.emit("creds.update", {});
  await Bun.sleep(10); // a write would be asynchronous: give it the time to land
  expect(await rows(h.rt.deps.db, id)).toEqual([]);
  expect(await h.rt.deps.db.prepare("SELECT credentials FROM chat_sessions WHERE id = ?").get(id)).toEqual({ credentials: null });
  // deleting a session drops its rows too (foreign key)
  const other = await h.linkedSession();
  await other.sock.config.auth.keys.set({ session: { y: Buffer.from("y") } });
  expect((await h.call("DELETE", `/api/v1/chatapp/${other.id}`)).status).toBe(200);
  expect(await rows(h.rt.deps.db, other.id)).toEqual([]);
});

test("a value moved onto another key does not open (sealed with session, type and id bound in)", async () => {
  const h = await fileHarness();
  const { id, sock } = await h.linkedSession();
  await sock.config.auth.keys.set({ session: { a: Buffer.from("A"), b: Buffer.from("B") } });
  const db = h.rt.deps.db;
  const a = ((await db.prepare("SELECT value FROM session_keys WHERE session_id = ? AND id = 'a'").get(id)) as { value: string }).value;
  await db.prepare("UPDATE session_keys SET value = ? WHERE session_id = ? AND id = 'b'").run(a, id);
  const store = sessionCredentialStore(h.rt.deps, id, () => true);
  expect(Object.keys(await store.getKeys("session", ["a", "b"]))).toEqual(["a"]);
  expect(encryptCredentials(KEY, id, "x")).not.toBe(a);
});

test("a new pairing starts without the keys an abandoned one left behind", async () => {
  const h = await fileHarness();
  const id = (await h.call("POST", "/api/v1/chatapp", { name: "fresh" })).body.data.id as string;
  // keys of an earlier pairing that never completed (no creds document was stored)
  const store = sessionCredentialStore(h.rt.deps, id, () => true);
  await store.setKeys([{ type: "pre-key", id: "1", value: JSON.stringify({ stale: true }) }]);
  expect(await rows(h.rt.deps.db, id)).toHaveLength(1);
  const connecting = h.call("POST", `/api/v1/chatapp/${id}/connect`);
  const sock = await until(() => h.sockets.at(-1), "socket");
  sock.ev.emit("connection.update", { qr: "2@abc,def,ghi,1" });
  expect((await connecting).status).toBe(200);
  expect(await rows(h.rt.deps.db, id)).toEqual([]);
});
