// The dashboard's token handling (web/src/api/tokens.ts) against the real auth routes:
// concurrent refreshes share one rotation (a second use would revoke the login, docs/authentication.md), a refused
// refresh signs out with a reason, and the refresh token lives in sessionStorage only.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { createWorkspace } from "../helpers/fixtures.ts";

let t: TestApp;
let calls = 0;
const store = new Map<string, string>();
const realFetch = globalThis.fetch;

beforeAll(async () => {
  t = await createTestApp();
  // the browser globals the module uses: a tab's sessionStorage, and fetch to the app itself
  (globalThis as any).sessionStorage = {
    getItem: (k: string) => store.get(k) ?? null,
    setItem: (k: string, v: string) => void store.set(k, v),
    removeItem: (k: string) => void store.delete(k),
  };
  globalThis.fetch = (async (input: string, init?: RequestInit) => {
    if (String(input).includes("/api/auth/refresh")) calls++;
    return t.app.handle(new Request(`http://localhost${input}`, init));
  }) as typeof fetch;
});
afterAll(() => {
  globalThis.fetch = realFetch;
  t.close();
});

async function loginPair() {
  const ws = await createWorkspace(t);
  const r = await t.request("POST", "/api/auth/login", { body: { email: ws.owner.email, password: "correct horse battery" } });
  expect(r.status).toBe(200);
  return r.body.data as { accessToken: string; refreshToken: string };
}

test("concurrent refreshes make one request; the login survives and the claims are read", async () => {
  const tokens = await import("../../web/src/api/tokens.ts");
  const pair = await loginPair();
  tokens.signedIn(pair.accessToken, pair.refreshToken);
  expect(tokens.tokenStore.get().claims?.role).toBe("owner");
  expect(store.get("parley.refreshToken")).toBe(pair.refreshToken);
  calls = 0;
  const results = await Promise.all([tokens.refresh(), tokens.refresh(), tokens.refresh()]);
  expect(results).toEqual([true, true, true]);
  expect(calls).toBe(1);
  const rotated = store.get("parley.refreshToken")!;
  expect(rotated).not.toBe(pair.refreshToken);
  // the rotated token still works: the family was not revoked by a second use
  expect(await tokens.refresh()).toBe(true);
  expect(tokens.tokenStore.get().access).toBeString();
  tokens.signedOut();
});

test("a refused refresh signs out with the reason shown on the log-in screen", async () => {
  const tokens = await import("../../web/src/api/tokens.ts");
  const pair = await loginPair();
  tokens.signedIn(pair.accessToken, pair.refreshToken);
  // the same refresh token used elsewhere first: ours is now a reused one (that revokes the family)
  expect((await t.request("POST", "/api/auth/refresh", { body: { refreshToken: pair.refreshToken } })).status).toBe(200);
  expect(await tokens.refresh()).toBe(false);
  const s = tokens.tokenStore.get();
  expect(s.access).toBeNull();
  expect(s.endedReason).toContain("Sign in again");
  expect(store.has("parley.refreshToken")).toBe(false);
});

test("the API client refreshes once on a 401 and repeats the call", async () => {
  const tokens = await import("../../web/src/api/tokens.ts");
  const { get } = await import("../../web/src/api/client.ts");
  const pair = await loginPair();
  tokens.signedIn("not-a-valid-jwt.e30.x", pair.refreshToken);
  calls = 0;
  const profile = await get<{ role: string }>("/api/auth/profile");
  expect(profile.role).toBe("owner");
  expect(calls).toBe(1);
  tokens.signedOut();
});

test("a refused log-in says why (wrong password), not that a sign-in ended; a signed-in 401 does", async () => {
  const tokens = await import("../../web/src/api/tokens.ts");
  const { get, post } = await import("../../web/src/api/client.ts");
  const { describeError } = await import("../../web/src/ui/errors.tsx");
  const ws = await createWorkspace(t);
  const wrong = (await post("/api/auth/login", { email: ws.owner.email, password: "not the password at all" }).catch((e: unknown) => e)) as { status: number };
  expect(wrong.status).toBe(401);
  expect(describeError(wrong)).toBe("Invalid email or password");
  // signed in, and the refresh is refused too: the login is over
  const pair = await loginPair();
  tokens.signedIn("not-a-valid-jwt.e30.x", "not-a-refresh-token");
  const ended = (await get("/api/auth/profile").catch((e: unknown) => e)) as { status: number };
  expect(ended.status).toBe(401);
  tokens.signedIn(pair.accessToken, pair.refreshToken);
  expect(describeError(ended)).toBe("Your sign-in ended. Sign in again.");
  tokens.signedOut();
});

test("an error on a part of a list or map (tags.0, attributes.<key>) is shown beside the field that holds it", async () => {
  const tokens = await import("../../web/src/api/tokens.ts");
  const { post } = await import("../../web/src/api/client.ts");
  const { fieldError } = await import("../../web/src/ui/errors.tsx");
  const pair = await loginPair();
  tokens.signedIn(pair.accessToken, pair.refreshToken);
  const e = await post("/api/v1/contacts", { phone: "919833300071", tags: ["ok", "x".repeat(41)], attributes: { "1bad": "x" } }).catch((err: unknown) => err);
  expect(Object.keys((e as { errors: Record<string, string> }).errors).sort()).toEqual(["attributes.1bad", "tags.1"]);
  expect(fieldError(e, "tags")).toBe("must be at most 40 characters (item 2)");
  expect(fieldError(e, "attributes")).toContain("(1bad)");
  expect(fieldError(e, "phone")).toBeUndefined();
  expect(fieldError(e, "tag")).toBeUndefined(); // a field whose name is only a prefix of the word
  tokens.signedOut();
});

test("a 403 for a member demoted since the token was issued refreshes it: the role in the screens is the current one", async () => {
  const tokens = await import("../../web/src/api/tokens.ts");
  const { post } = await import("../../web/src/api/client.ts");
  const ws = await createWorkspace(t);
  const agent = await ws.member("agent");
  const r = await t.request("POST", "/api/auth/login", { body: { email: agent.email, password: "correct horse battery" } });
  tokens.signedIn(r.body.data.accessToken, r.body.data.refreshToken);
  expect(tokens.tokenStore.get().claims?.role).toBe("agent");
  await t.deps.db.prepare("UPDATE users SET role = 'viewer' WHERE id = ?").run(agent.userId);
  calls = 0;
  const refused = (await post("/api/v1/contacts", { phone: "919833300072" }).catch((e: unknown) => e)) as { status: number };
  expect(refused.status).toBe(403);
  for (let i = 0; i < 50 && tokens.tokenStore.get().claims?.role !== "viewer"; i++) await Bun.sleep(10);
  expect(tokens.tokenStore.get().claims?.role).toBe("viewer");
  expect(calls).toBe(1);
  tokens.signedOut();
});
