import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, spawnServer, type ChildServer } from "../helpers/process.ts";

let server: ChildServer;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "parley-outbox-"));
  server = await spawnServer({ dataDir, env: { PARLEY_CAPTCHA: "off" } });
});
afterAll(async () => {
  await server.stop();
});

async function outbox(...args: string[]) {
  const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "outbox", "--data-dir", dataDir, ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: await p.exited, out: await new Response(p.stdout).text(), err: await new Response(p.stderr).text() };
}

const post = async (path: string, body: unknown, token?: string) => {
  const res = await fetch(server.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

test("parley outbox reads a running child server's codes; the code completes the verification", async () => {
  const mobile = "919812345678";
  const reg = await post("/api/auth/register", {
    name: "Outbox Tester",
    email: "outbox@example.com",
    password: "Outbox-pass-2026",
    confirmPassword: "Outbox-pass-2026",
    tenantName: "Outbox Co",
    mobile,
  });
  expect(reg.status).toBe(201);
  const token = reg.body.data.registrationToken;
  expect((await post("/api/auth/mobile/send-otp", {}, token)).status).toBe(200);

  const json = await outbox("--json");
  expect(json.code).toBe(0);
  const entries = JSON.parse(json.out);
  expect(entries[0]).toMatchObject({ medium: "mobile", to: mobile, kind: "otp" });
  const code = entries[0].text.match(/\b(\d{6})\b/)[1];

  const human = await outbox("--to", mobile);
  expect(human.code).toBe(0);
  expect(human.out).toContain(`mobile to ${mobile}`);
  expect(human.out).toContain(code);
  // as people write it: a plus, spaces and dashes
  const written = await outbox("--to", `+${mobile.slice(0, 2)} ${mobile.slice(2, 7)}-${mobile.slice(7)}`);
  expect(written.out).toContain(code);

  const verified = await post("/api/auth/mobile/verify-otp", { otpCode: code }, token);
  expect(verified.status).toBe(200);
  expect(verified.body.data.nextStep).toBe("email");
});

test("a data dir without a database is refused (exit 1, nothing created); a bad --limit exits 2", async () => {
  const empty = mkdtempSync(join(tmpdir(), "parley-outbox-empty-"));
  const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "outbox", "--json", "--data-dir", empty], { stdout: "pipe", stderr: "pipe" });
  expect(await p.exited).toBe(1);
  expect(await new Response(p.stderr).text()).toContain(`no database in ${empty}`);
  expect(readdirSync(empty)).toEqual([]);
  expect((await outbox("--limit", "0")).code).toBe(2);
});

test("parley --help lists outbox", async () => {
  const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "--help"], { stdout: "pipe" });
  expect(await new Response(p.stdout).text()).toContain("outbox");
});
