// A path that exists answers other methods with 405 and an Allow header naming the ones it
// takes; a path that does not exist stays 404. Swept over every route of the app.
import { afterAll, expect, test } from "bun:test";
import { createTestApp } from "../helpers/app.ts";
import { allowedMethods } from "../../src/http/allowed-methods.ts";

const t = await createTestApp();
afterAll(() => t.close());
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

test("DELETE /health: 405 in the envelope with Allow: GET, HEAD", async () => {
  const r = await t.request("DELETE", "/health");
  expect(r.status).toBe(405);
  expect(r.headers.get("allow")).toBe("GET, HEAD");
  expect(r.body).toMatchObject({ success: false, code: "METHOD_NOT_ALLOWED" });
  expect(r.headers.get("x-request-id")).toBeTruthy();
});

test("every route, with a method it does not take, answers 405 naming the methods it does", async () => {
  const byPath = new Map<string, Set<string>>();
  for (const r of t.app.routes) {
    const path = r.path.replace(/:[^/]+/g, "01a218ce-4530-71f9-a4bd-3a536e3ebc1a").replace(/\*$/, "x");
    const m = r.method === "WS" ? "GET" : r.method;
    byPath.set(path, (byPath.get(path) ?? new Set()).add(m));
  }
  let checked = 0;
  const wrong: string[] = [];
  for (const [path, methods] of byPath) {
    // GET /api/v1/messages/send is GET /api/v1/messages/:id: a route of its own, not a 405
    const taken = allowedMethods(t.app.routes)(path);
    const other = METHODS.find((m) => !methods.has(m) && !taken.includes(m));
    if (!other) continue;
    const r = await t.request(other, path);
    checked++;
    const allow = r.headers.get("allow") ?? "";
    if (r.status !== 405 || ![...methods].every((m) => allow.split(", ").includes(m))) wrong.push(`${other} ${path}: ${r.status} allow=${allow}`);
  }
  expect(wrong).toEqual([]);
  expect(checked).toBeGreaterThan(60);
});

test("a path no route has is still 404", async () => {
  for (const [m, p] of [["GET", "/api/v1/nothing-here"], ["POST", "/nope"], ["DELETE", "/api/v1/contacts/a/b/c"]]) {
    const r = await t.request(m!, p!);
    expect(`${m} ${p} ${r.status}`).toBe(`${m} ${p} 404`);
    expect(r.headers.get("allow")).toBeNull();
  }
});
