// The dashboard's files go out compressed (brotli or gzip, as the browser accepts), made once,
// with validators and long caching for the versioned assets; the sign-in screens have a <main>.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { pickEncoding } from "../../src/modules/web/compressed.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = {}) => t.app.handle(new Request(`http://localhost:3000${path}`, { headers: { host: "localhost:3000", ...headers } }));
const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());

test("app.js and app.css: brotli or gzip as accepted, the same content as uncompressed, cached for good, 304 on a matching ETag", async () => {
  for (const file of ["app.js", "app.css"]) {
    const plain = await get(`/app/assets/${file}`);
    expect(plain.headers.get("content-encoding")).toBeNull();
    const text = await plain.text();
    const br = await get(`/app/assets/${file}`, { "accept-encoding": "gzip, deflate, br, zstd" });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toContain("Accept-Encoding");
    expect(br.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const brBody = await bytes(br);
    expect(new TextDecoder().decode(brotliDecompressSync(brBody))).toBe(text);
    const gz = await get(`/app/assets/${file}`, { "accept-encoding": "gzip" });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    const gzBody = await bytes(gz);
    expect(new TextDecoder().decode(gunzipSync(gzBody))).toBe(text);
    if (file === "app.js") {
      expect(brBody.length).toBeLessThan(text.length * 0.35);
      expect(gzBody.length).toBeLessThan(text.length * 0.4);
    }
    const etag = br.headers.get("etag")!;
    expect(etag).toMatch(/^".+"$/);
    const again = await get(`/app/assets/${file}`, { "accept-encoding": "br", "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  }
});

test("the page itself is compressed too, and never cached without asking", async () => {
  const r = await get("/app/", { "accept-encoding": "gzip" });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-encoding")).toBe("gzip");
  expect(r.headers.get("cache-control")).toBe("no-cache");
  expect(new TextDecoder().decode(gunzipSync(await bytes(r)))).toContain("<html");
});

test("Accept-Encoding: q=0 refuses an encoding; * stands for the rest", () => {
  expect(pickEncoding(null)).toBeNull();
  expect(pickEncoding("identity")).toBeNull();
  expect(pickEncoding("br;q=0, gzip")).toBe("gzip");
  expect(pickEncoding("gzip;q=0, br;q=0")).toBeNull();
  expect(pickEncoding("*")).toBe("br");
  expect(pickEncoding("*;q=0.5, br;q=0")).toBe("gzip");
});

test("the sign-in, sign-up and password screens have a <main> landmark (each screen's outer element)", async () => {
  for (const screen of ["Login", "Signup", "Password"]) {
    const src = await Bun.file(`${import.meta.dir}/../../web/src/screens/${screen}.tsx`).text();
    const outer = [...src.matchAll(/return \(\s*\n\s*<(\w+) className="auth">/g)].map((m) => m[1]);
    expect(outer.length).toBeGreaterThan(0);
    expect(`${screen}: ${outer.join(",")}`).toBe(`${screen}: ${outer.map(() => "main").join(",")}`);
  }
});
