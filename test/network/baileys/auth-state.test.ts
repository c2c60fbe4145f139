import { expect, test } from "bun:test";
import { proto } from "baileys";
import { memoryAuthState } from "../../../src/network/baileys/auth-state.ts";

test("a fresh state is unlinked, and survives serialization with its Buffers intact", () => {
  let changes = 0;
  const a = memoryAuthState(null, () => changes++);
  expect(a.linked()).toBe(false);
  a.state.keys.set({ "pre-key": { "1": { public: Buffer.from([1, 2, 3]), private: Buffer.from([4, 5, 6]) } }, session: { "919800000001.0": Buffer.from("sess") } });
  expect(changes).toBe(1);
  const b = memoryAuthState(a.serialize(), () => {});
  expect(Buffer.from(b.state.creds.noiseKey.public).equals(Buffer.from(a.state.creds.noiseKey.public))).toBe(true);
  expect(Buffer.isBuffer(b.state.creds.signedIdentityKey.private)).toBe(true);
  expect(b.state.creds.registrationId).toBe(a.state.creds.registrationId);
  const got = b.state.keys.get("pre-key", ["1", "2"]) as unknown as Record<string, { public: Uint8Array }>;
  expect(Object.keys(got)).toEqual(["1"]);
  expect(Buffer.from(got["1"]!.public).equals(Buffer.from([1, 2, 3]))).toBe(true);
});

test("null deletes a key; app-state sync keys come back as proto objects", async () => {
  const a = memoryAuthState(null, () => {});
  await a.state.keys.set({ "app-state-sync-key": { k1: { keyData: Buffer.from([9]), timestamp: 1 } as never } });
  const b = memoryAuthState(a.serialize(), () => {});
  const k = (await b.state.keys.get("app-state-sync-key", ["k1"]))["k1"];
  expect(k).toBeInstanceOf(proto.Message.AppStateSyncKeyData);
  await b.state.keys.set({ "app-state-sync-key": { k1: null } });
  expect(await b.state.keys.get("app-state-sync-key", ["k1"])).toEqual({});
});

test("linked once the phone accepted the device; unknown formats are refused", () => {
  const a = memoryAuthState(null, () => {});
  Object.assign(a.state.creds, { me: { id: "919812345678:3@s.whatsapp.net" }, account: { details: Buffer.from([1]) } });
  expect(memoryAuthState(a.serialize(), () => {}).linked()).toBe(true);
  expect(() => memoryAuthState(JSON.stringify({ v: 2 }), () => {})).toThrow(/version/);
});
