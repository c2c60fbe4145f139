import { expect, test } from "bun:test";
import { BufferJSON, initAuthCreds, proto } from "baileys";
import { loadAuthState, MemoryCredentialStore, serializeCreds } from "../../../src/network/baileys/auth-state.ts";

/** The format every stored link had before keys became rows: one blob with creds and every key. */
function v1Blob(keys: Record<string, Record<string, unknown>>) {
  const creds = initAuthCreds();
  Object.assign(creds, { me: { id: "919812345678:3@s.whatsapp.net" }, account: { details: Buffer.from([1]) } });
  return { creds, text: JSON.stringify({ v: 1, creds, keys }, BufferJSON.replacer) };
}

test("every keys.set is one write to the store, with Buffers kept; creds are written only by saveCreds", async () => {
  const store = new MemoryCredentialStore();
  const a = await loadAuthState(null, store);
  expect(a.linked()).toBe(false);
  expect(store.doc).toBeNull(); // nothing written until baileys says creds changed
  await a.state.keys.set({ "pre-key": { "1": { public: Buffer.from([1, 2, 3]), private: Buffer.from([4, 5, 6]) } }, session: { "919800000001.0": Buffer.from("sess") } });
  expect(store.writes).toBe(1);
  expect(store.keys.size).toBe(2);
  expect(store.doc).toBeNull();
  await a.saveCreds();
  const b = await loadAuthState(store.doc, store);
  expect(Buffer.from(b.state.creds.noiseKey.public).equals(Buffer.from(a.state.creds.noiseKey.public))).toBe(true);
  expect(Buffer.isBuffer(b.state.creds.signedIdentityKey.private)).toBe(true);
  expect(b.state.creds.registrationId).toBe(a.state.creds.registrationId);
  const got = (await b.state.keys.get("pre-key", ["1", "2"])) as unknown as Record<string, { public: Uint8Array }>;
  expect(Object.keys(got)).toEqual(["1"]);
  expect(Buffer.from(got["1"]!.public).equals(Buffer.from([1, 2, 3]))).toBe(true);
});

test("null deletes a key; app-state sync keys come back as proto objects; clear drops them all", async () => {
  const store = new MemoryCredentialStore();
  const a = await loadAuthState(null, store);
  await a.state.keys.set({ "app-state-sync-key": { k1: { keyData: Buffer.from([9]), timestamp: 1 } as never } });
  const k = (await a.state.keys.get("app-state-sync-key", ["k1"]))["k1"];
  expect(k).toBeInstanceOf(proto.Message.AppStateSyncKeyData);
  await a.state.keys.set({ "app-state-sync-key": { k1: null } });
  expect(await a.state.keys.get("app-state-sync-key", ["k1"])).toEqual({});
  await a.state.keys.set({ session: { s: Buffer.from([1]) } });
  await a.state.keys.clear!();
  expect(store.keys.size).toBe(0);
});

test("a v1 blob is split on first load: its keys become store entries, the document is rewritten without them", async () => {
  const { creds, text } = v1Blob({ "pre-key": { "7": { public: Buffer.from([7]), private: Buffer.from([8]) } }, session: { "919800000001.0": Buffer.from("s") }, "sender-key": {} });
  const store = new MemoryCredentialStore();
  const a = await loadAuthState(text, store);
  expect(a.linked()).toBe(true);
  expect([...store.keys.keys()].sort()).toEqual(["pre-key/7", "session/919800000001.0"]);
  const doc = JSON.parse(store.doc!) as { v: number; keys?: unknown };
  expect(doc.v).toBe(2);
  expect(doc.keys).toBeUndefined();
  expect(store.doc).toBe(serializeCreds(a.state.creds));
  const session = (await a.state.keys.get("session", ["919800000001.0"]))["919800000001.0"]!;
  expect(Buffer.from(session).toString()).toBe("s");
  // loading the migrated document changes nothing more
  const writes = store.writes;
  const b = await loadAuthState(store.doc, store);
  expect(store.writes).toBe(writes);
  expect(b.state.creds.registrationId).toBe(creds.registrationId);
});

test("unknown formats are refused", async () => {
  await expect(loadAuthState(JSON.stringify({ v: 3 }), new MemoryCredentialStore())).rejects.toThrow(/version/);
});
