import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { Elysia } from "elysia";
import { z } from "zod";
import { envelopeResponses } from "../../src/http/openapi.ts";
import { openApiDocument } from "../../src/modules/docs/routes.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { createWorkspace } from "../helpers/fixtures.ts";
import { connectedSession, createApiKey } from "../modules/messages/helpers.ts";

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await createTestApp({ config: { sendMinGapMs: 0, sendJitterMs: 0 } });
  doc = (await t.request("GET", "/openapi.json")).body;
});
afterAll(() => t.close());

const operations = () => Object.entries<Record<string, any>>(doc.paths).flatMap(([path, ops]) => Object.entries<any>(ops).map(([method, op]) => ({ path, method, op })));

test("the document is valid OpenAPI 3.0 for a stock validator (@apidevtools/swagger-parser)", async () => {
  await SwaggerParser.validate(structuredClone(doc));
  expect(operations().length).toBeGreaterThan(50);
});

test("every operation documents a success and its failures in the envelope", () => {
  const missing: string[] = [];
  for (const { path, method, op } of operations()) {
    const statuses = Object.keys(op.responses ?? {});
    if (!statuses.some((s) => /^2\d\d$/.test(s))) missing.push(`${method} ${path}: no 2xx`);
    if (!op.responses?.default) missing.push(`${method} ${path}: no default`);
    for (const s of statuses.filter((s) => /^[45]\d\d$/.test(s))) {
      // failures refer to the shared responses of components.responses
      const response = op.responses[s].$ref ? doc.components.responses[op.responses[s].$ref.split("/").pop()] : op.responses[s];
      if (response?.content["application/json"].schema.$ref !== "#/components/schemas/ErrorEnvelope") missing.push(`${method} ${path}: ${s}`);
    }
    if (op.security?.length && !(op.responses["401"] && op.responses["403"])) missing.push(`${method} ${path}: 401/403`);
    if (path.includes("{") && !op.responses["404"]) missing.push(`${method} ${path}: 404`);
    if (op.requestBody && !op.responses["400"]) missing.push(`${method} ${path}: 400`);
  }
  expect(missing).toEqual([]);
  expect(doc.components.schemas.ErrorEnvelope.required).toEqual(["success", "code", "message", "requestId"]);
});

test("the statuses routes really answer: 201 creates, 202 sends, 502 and 409 where declared", () => {
  expect(Object.keys(doc.paths["/api/auth/register"].post.responses)).toContain("201");
  expect(Object.keys(doc.paths["/api/v1/chatapp"].post.responses)).toEqual(expect.arrayContaining(["201", "409"]));
  expect(Object.keys(doc.paths["/api/webhooks"].post.responses)).toContain("201");
  const send = doc.paths["/api/v1/messages/send"].post.responses;
  expect(Object.keys(send)).toEqual(expect.arrayContaining(["202", "502"]));
  expect(send["200"]).toBeUndefined();
  expect(send["202"].content["application/json"].schema.properties.data.required).toEqual(["id", "status", "sessionId", "to", "type", "createdAt", "sendAt"]);
  expect(Object.keys(doc.paths["/ready"].get.responses)).toContain("503");
});

test("lists carry their pagination in the schema: numbered pages, keyset cursors, or either", () => {
  const schemaOf = (p: string) => doc.paths[p].get.responses["200"].content["application/json"].schema;
  const page = { $ref: "#/components/schemas/PagePagination" };
  const cursor = { $ref: "#/components/schemas/CursorPagination" };
  expect(doc.components.schemas.PagePagination.required).toEqual(["page", "limit", "total", "totalPages"]);
  expect(doc.components.schemas.CursorPagination.required).toEqual(["limit", "hasMore", "nextCursor", "prevCursor"]);
  expect(schemaOf("/api/v1/chatapp").properties.pagination).toEqual(page);
  for (const p of ["/api/v1/messages", "/api/external/messages", "/api/v1/inbox/conversations/{id}/messages"]) expect(schemaOf(p).properties.pagination).toEqual(cursor);
  expect(schemaOf("/api/webhooks/{id}/history").properties.pagination).toEqual({ oneOf: [page, cursor] });
  expect(schemaOf("/api/external/messages").properties.data.type).toBe("array");
  // the paging parameters say how each list pages
  const param = (p: string, name: string) => doc.paths[p].get.parameters.find((x: { name: string }) => x.name === name);
  expect(param("/api/v1/inbox/conversations/{id}/messages", "before").description).toContain("pagination.nextCursor");
  expect(param("/api/v1/inbox/conversations/{id}/messages", "page").schema.maximum).toBe(1);
  expect(param("/api/webhooks/{id}/history", "after").description).toContain("keyset");
  expect(param("/api/v1/chatapp", "page").description).toContain("from 1");
});

test("media uploads are multipart/form-data with a binary file; downloads are the file, by its media type", () => {
  for (const p of ["/api/v1/media", "/api/external/media"]) {
    const content = doc.paths[p].post.requestBody.content;
    expect(Object.keys(content)).toEqual(["multipart/form-data"]);
    expect(content["multipart/form-data"].schema.properties.file).toEqual({ type: "string", format: "binary" });
  }
  for (const p of ["/api/v1/media/{id}", "/api/external/media/{id}"]) {
    const content = doc.paths[p].get.responses["200"].content;
    expect(Object.keys(content)).toEqual(["image/*", "audio/*", "video/*", "application/*", "text/*"]);
    expect(content["image/*"].schema).toEqual({ type: "string", format: "binary" });
  }
});

test("operationIds are clean and unique", () => {
  const ids = operations().map((o) => o.op.operationId);
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
  const idOf = (path: string, method: string) => doc.paths[path][method].operationId;
  expect(idOf("/api/v1/chatapp/{id}/connect", "post")).toBe("sessionsConnect");
  expect(idOf("/api/v1/chatapp", "get")).toBe("listSessions");
  expect(idOf("/api/v1/chatapp", "post")).toBe("createSession");
  expect(idOf("/api/v1/chatapp/{id}", "get")).toBe("getSession");
  expect(idOf("/api/v1/messages/send", "post")).toBe("messagesSend");
  expect(idOf("/api/external/messages/send", "post")).toBe("externalMessagesSend");
  expect(idOf("/api/team/members/{id}", "delete")).toBe("deleteTeamMember");
  expect(idOf("/api/v1/media", "post")).toBe("uploadMedia");
  expect(idOf("/api/auth/login", "post")).toBe("authLogin");
});

test("the documented data shapes are what the routes answer", async () => {
  const ws = await createWorkspace(t);
  const session = await connectedSession(t, ws);
  const key = await createApiKey(t, ws);
  const dataProps = (path: string, method: string, status: string) =>
    Object.keys(doc.paths[path][method].responses[status].content["application/json"].schema.properties.data.properties ?? doc.paths[path][method].responses[status].content["application/json"].schema.properties.data.items.properties).sort();
  const sent = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to: "919876543210", body: "x" } });
  expect(Object.keys(sent.body.data).sort()).toEqual(dataProps("/api/v1/messages/send", "post", "202"));
  const one = await t.request("GET", `/api/v1/messages/${sent.body.data.id}`, { token: ws.owner.token });
  expect(Object.keys(one.body.data).sort()).toEqual(dataProps("/api/v1/messages/{id}", "get", "200"));
  const sessions = await t.request("GET", "/api/external/sessions", { apiKey: key });
  expect(Object.keys(sessions.body.data[0]).sort()).toEqual(dataProps("/api/external/sessions", "get", "200"));
  expect(Object.keys((await t.request("GET", "/health")).body.data).sort()).toEqual(dataProps("/health", "get", "200"));
  expect(Object.keys((await t.request("GET", "/ready")).body.data).sort()).toEqual(dataProps("/ready", "get", "200"));
  const inbound = await t.request("POST", `/api/sim/sessions/${session.id}/inbound`, { token: ws.owner.token, body: { from: "919800000001", text: "hi" } });
  expect(Object.keys(inbound.body.data).sort()).toEqual(dataProps("/api/sim/sessions/{id}/inbound", "post", "200"));
});

describe("a new route gets the envelope responses without doing anything", () => {
  test("inferred statuses, and what it declares with envelopeResponses", async () => {
    const app = new Elysia()
      .post("/api/things/:id", () => ({ success: true }), { body: z.object({ name: z.string() }), detail: { summary: "plain" } })
      .post("/api/things", () => ({ success: true }), {
        body: z.object({ name: z.string() }),
        detail: { summary: "declared", responses: envelopeResponses({ status: 201, data: z.object({ id: z.string() }), errors: [409] }) },
      });
    const d = (await openApiDocument(app, "1.0.0")) as any;
    await SwaggerParser.validate(structuredClone(d));
    expect(Object.keys(d.paths["/api/things/{id}"].post.responses).sort()).toEqual(["200", "400", "404", "413", "429", "default"]);
    expect(Object.keys(d.paths["/api/things"].post.responses).sort()).toEqual(["201", "400", "409", "413", "429", "default"]);
    expect(d.paths["/api/things"].post.responses["201"].content["application/json"].schema.properties.data.required).toEqual(["id"]);
    expect(d.paths["/api/things/{id}"].post.operationId).toBe("thing");
    expect(d.paths["/api/things"].post.operationId).toBe("things");
  });
});
