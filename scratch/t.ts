import { Elysia } from "elysia";
import { z } from "zod";
import { loadConfig } from "../src/config.ts";
import { corePlugin } from "../src/http/core-plugin.ts";
import { errorsPlugin } from "../src/http/errors-plugin.ts";
import { silentLogger } from "../src/log.ts";
const config = loadConfig({});
const body = z.object({ type: z.enum(["text","image"]).default("text"), body: z.string().optional(), media: z.string().optional() }).superRefine((v, ctx) => {
  if (v.type === "text" && !v.body) ctx.addIssue({ code: "custom", path: ["body"], message: "is required for text messages" });
});
const app = new Elysia().use(corePlugin(config, silentLogger)).use(errorsPlugin(silentLogger))
  .post("/x", ({ body }) => ({ ok: body }), { body })
  .post("/f", ({ body }) => ({ name: body.file.name, size: body.file.size, type: body.file.type, isFile: body.file instanceof File, other: body.note }), { body: z.object({ file: z.instanceof(File), note: z.string().optional() }) })
  .get("/q", ({ query }) => query, { query: z.object({ unread: z.enum(["true","false"]).optional(), before: z.uuid().optional() }) });
const r1 = await app.handle(new Request("http://localhost/x", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ type: "text" }) }));
console.log(r1.status, await r1.text());
const fd = new FormData(); fd.append("file", new File([new Uint8Array([1,2,3])], "a.bin", { type: "application/x-foo" })); fd.append("note", "hi");
const r2 = await app.handle(new Request("http://localhost/f", { method: "POST", body: fd }));
console.log(r2.status, await r2.text());
const fd2 = new FormData(); fd2.append("note", "hi");
const r3 = await app.handle(new Request("http://localhost/f", { method: "POST", body: fd2 }));
console.log(r3.status, await r3.text());
const r4 = await app.handle(new Request("http://localhost/q?unread=maybe&before=x"));
console.log(r4.status, await r4.text());
