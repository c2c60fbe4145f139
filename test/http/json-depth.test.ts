import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonTooDeep, MAX_JSON_DEPTH } from "../../src/http/json-depth.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";

const nested = (depth: number, open = "[", close = "]", inner = "1") => open.repeat(depth) + inner + close.repeat(depth);

describe("jsonTooDeep", () => {
  test("counts arrays and objects together, up to the limit inclusive", () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonTooDeep('{"a":'.repeat(40) + "[".repeat(30) + "1" + "]".repeat(30) + "}".repeat(40))).toBe(true);
    expect(jsonTooDeep('{"a":'.repeat(30) + "1" + "}".repeat(30))).toBe(false);
  });

  test("siblings do not add up: depth, not count", () => {
    expect(jsonTooDeep("[" + Array.from({ length: 10_000 }, () => "[1]").join(",") + "]")).toBe(false);
  });

  test("brackets inside strings do not count, escaped quotes and backslashes included", () => {
    expect(jsonTooDeep(JSON.stringify({ text: "[".repeat(1000) + "{".repeat(1000) }))).toBe(false);
    expect(jsonTooDeep(JSON.stringify({ text: 'a "quoted [[[ part" \\ and a backslash \\' + "[".repeat(500) }))).toBe(false);
    // a string ending in an escaped backslash closes: the brackets after it count
    expect(jsonTooDeep('["x\\\\",' + nested(MAX_JSON_DEPTH) + "]")).toBe(true);
  });
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("deeply nested JSON on the public routes", () => {
  const deep = nested(100_000); // ~200 KB, under the 1 MiB cap
  const routes = ["/api/auth/login", "/api/auth/register", "/api/auth/forgot-password", "/api/team/invitations/accept", "/api/auth/refresh"];
  for (const path of routes) {
    test(`${path}: 400 VALIDATION_ERROR before parsing`, async () => {
      const r = await t.request("POST", path, { body: deep });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code: "VALIDATION_ERROR", errors: { body: `nests deeper than ${MAX_JSON_DEPTH} levels` } });
    });
  }

  test("nested inside a field too, and under a +json media type", async () => {
    const r = await t.request("POST", "/api/auth/login", {
      body: `{"email":"a@example.com","password":${nested(5_000, '{"x":', "}")}}`,
      headers: { "content-type": "application/vnd.api+json" },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors.body).toContain("deeper");
  });

  test("a body at the limit still reaches validation (field errors, not the depth refusal)", async () => {
    const r = await t.request("POST", "/api/auth/login", { body: `{"email":${nested(MAX_JSON_DEPTH - 1)}}` });
    expect(r.status).toBe(400);
    expect(r.body.errors.body).toBeUndefined();
    expect(Object.keys(r.body.errors)).toContain("email");
  });
});

describe("deeply nested query values (Elysia JSON-parses a value starting with [ or {)", () => {
  test("400 naming the parameter; shallow values still validate", async () => {
    const { createWorkspace } = await import("../helpers/fixtures.ts");
    const ws = await createWorkspace(t);
    const deep = encodeURIComponent(nested(5_000));
    const r = await t.request("GET", `/api/v1/messages?direction=inbound&status=${deep}`, { token: ws.owner.token });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: "VALIDATION_ERROR", errors: { status: `nests deeper than ${MAX_JSON_DEPTH} levels` } });
    // a quote in an earlier value does not hide a later one
    const tricky = await t.request("GET", `/api/v1/messages?phone=${encodeURIComponent('["')}&status=${deep}`, { token: ws.owner.token });
    expect(tricky.body.errors.status).toContain("deeper");
    const shallow = await t.request("GET", `/api/v1/messages?status=${encodeURIComponent(nested(3))}`, { token: ws.owner.token });
    expect(shallow.status).toBe(400);
    expect(shallow.body.errors.status).not.toContain("deeper");
    expect((await t.request("GET", "/api/v1/messages?status=queued", { token: ws.owner.token })).status).toBe(200);
  });
});
