import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../helpers/fixtures.ts";

// The media routes take 110 MB bodies, and Elysia reads and parses a body before the route's
// guard runs. A caller whose credential does not authenticate must get its 401 before the
// server reads the body: four anonymous 100 MB sends held 1.4 GB of a real server's memory.

let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

/** A 20 MB body produced on demand, counting what the server pulled. */
function counted(): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x41);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= 20 * 1024 * 1024) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { body, pulled: () => pulled };
}

const routes: [string, string][] = [
  ["/api/v1/messages/send", "application/json"],
  ["/api/external/messages/send", "application/json"],
  ["/api/v1/media", "multipart/form-data; boundary=x"],
  ["/api/external/media", "multipart/form-data; boundary=x"],
];

test("no credential, a bad token or a bad key: 401 before the body is read", async () => {
  for (const [path, type] of routes) {
    for (const auth of [{}, { authorization: "Bearer not-a-token" }, { "x-api-key": "pk_" + "x".repeat(40) }] as Record<string, string>[]) {
      const { body, pulled } = counted();
      const res = await t.app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": type, ...auth }, body }));
      const json = (await res.json()) as { code: string };
      expect({ path, auth: Object.keys(auth)[0] ?? "none", status: res.status, code: json.code }).toEqual({ path, auth: Object.keys(auth)[0] ?? "none", status: 401, code: "UNAUTHORIZED" });
      expect({ path, pulledUnder1MB: pulled() < 1024 * 1024 }).toEqual({ path, pulledUnder1MB: true });
    }
  }
});

test("a member's token still reaches the route (its own validation answers)", async () => {
  const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: "not-a-uuid", to: "+91 98000 00001", type: "text", body: "hi" } });
  expect(r.status).toBe(400);
  expect(Object.keys(r.body.errors)).toContain("session_id");
});

test("a credential the gate verified is still judged by the route's guard: its kind and the permission", async () => {
  const viewer = await ws.member("viewer");
  const body = { session_id: "not-a-uuid", to: "+91 98000 00001", type: "text", body: "hi" };
  // the gate verified the viewer's token; the guard refuses the permission (before validation)
  const denied = await t.request("POST", "/api/v1/messages/send", { token: viewer.token, body });
  expect([denied.status, denied.body.code]).toEqual([403, "FORBIDDEN"]);
  // the gate verified a token; the route takes API keys only
  const keyOnly = await t.request("POST", "/api/external/messages/send", { token: ws.owner.token, body });
  expect([keyOnly.status, keyOnly.body.code]).toEqual([401, "UNAUTHORIZED"]);
});
