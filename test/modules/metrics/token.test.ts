import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";

// The scrape token: the scheme is case-insensitive (RFC 9110), the token itself is exact.

const TOKEN = "scrape-token-0123456789";
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { metricsToken: TOKEN } });
});
afterAll(() => t.close());

const status = async (authorization?: string) =>
  (await t.app.handle(new Request("http://localhost/metrics", { headers: authorization === undefined ? {} : { authorization } }))).status;

test("Bearer in any case, with the exact token, is let in", async () => {
  for (const a of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER ${TOKEN}`]) expect({ a, s: await status(a) }).toEqual({ a, s: 200 });
});

test("anything else is 401: no header, another scheme, a prefix, a longer token, another case, an empty token", async () => {
  for (const a of [undefined, TOKEN, `Basic ${TOKEN}`, `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.toUpperCase()}`, "Bearer ", "Bearer"]) {
    expect({ a, s: await status(a) }).toEqual({ a, s: 401 });
  }
});
