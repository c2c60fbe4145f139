import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../helpers/fixtures.ts";

// Bodies are capped at 1 MiB except on the routes that take media. A multipart body is
// buffered whole before the route's guard runs, so a multipart login or register must not get
// the media cap (110 MB): six anonymous ones held 900 MB of the server's memory.

let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp({ config: { jsonBodyLimit: 64 * 1024, mediaBodyLimit: 4 * 1024 * 1024 } });
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

const form = (bytes: number) => {
  const f = new FormData();
  f.append("email", "a@example.com");
  f.append("password", "not-the-password");
  f.append("file", new File([new Uint8Array(bytes).fill(0x41)], "x.pdf", { type: "application/pdf" }));
  return f;
};

test("a multipart body over the JSON cap is 413 on routes that take no media, declared or streamed", async () => {
  for (const path of ["/api/auth/login", "/api/auth/register", "/api/auth/forgot-password", "/api/team/invitations/accept", "/api/v1/chatapp"]) {
    const declared = await t.request("POST", path, { body: form(200 * 1024), token: ws.owner.token });
    expect({ path, status: declared.status, errors: declared.body.errors }).toEqual({ path, status: 413, errors: { body: `must be at most ${64 * 1024} bytes` } });
    // chunked: no Content-Length, the cap holds while reading
    const body = await new Response(form(200 * 1024)).blob();
    const type = new Response(form(1)).headers.get("content-type")!;
    const stream = new Blob([body]).stream();
    const res = await t.app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": type.replace(/boundary=.*/, "") + (await boundaryOf(body)) }, body: stream }));
    expect({ path, chunked: res.status }).toEqual({ path, chunked: 413 });
  }
});

test("the media routes still take uploads past the JSON cap", async () => {
  const up = await t.request("POST", "/api/v1/media", { body: form(200 * 1024), token: ws.owner.token });
  expect(up.status).toBe(201);
  const over = await t.request("POST", "/api/v1/media", { body: form(5 * 1024 * 1024), token: ws.owner.token });
  expect(over.status).toBe(413);
});

/** The boundary parameter of a serialised multipart body (its first line is `--<boundary>`). */
async function boundaryOf(body: Blob): Promise<string> {
  const first = (await body.slice(0, 200).text()).split("\r\n")[0]!;
  return `boundary=${first.slice(2)}`;
}

test("a JSON body read at once (declared Content-Length) keeps the cap and decodes UTF-8 as the streamed read does", async () => {
  // an in-process Request can declare less than it carries: the bytes read are what is capped
  const big = JSON.stringify({ email: "a@example.com", password: "x".repeat(100 * 1024) });
  const res = await t.app.handle(
    new Request("http://localhost/api/auth/login", { method: "POST", headers: { "content-type": "application/json", "content-length": "10" }, body: big }),
  );
  expect(res.status).toBe(413);
  const name = "Zoë 名前 🙂";
  const text = JSON.stringify({ name });
  const bytes = new TextEncoder().encode(text);
  const headers = { "content-type": "application/json", authorization: `Bearer ${ws.owner.token}` };
  const declared = await t.app.handle(
    new Request("http://localhost/api/auth/profile", { method: "PUT", headers: { ...headers, "content-length": String(bytes.byteLength) }, body: bytes }),
  );
  const streamed = await t.app.handle(new Request("http://localhost/api/auth/profile", { method: "PUT", headers, body: new Blob([bytes]).stream() }));
  expect([declared.status, streamed.status]).toEqual([200, 200]);
  expect(((await declared.json()) as { data: { name: string } }).data.name).toBe(name);
  expect(((await streamed.json()) as { data: { name: string } }).data.name).toBe(name);
});
