// `parley keys list | head -1`: once the reader has gone, the command ends quietly (status 0)
// instead of printing an EPIPE stack trace. And invitations refuse an address whose local part
// is longer than mail servers take.
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp } from "../helpers/app.ts";
import { createWorkspace } from "../helpers/fixtures.ts";
import { BUN, ROOT } from "../helpers/process.ts";

const dataDir = mkdtempSync(join(tmpdir(), "parley-epipe-"));
const run = (args: string) => Bun.spawnSync(["bash", "-c", `"${BUN}" src/main.ts ${args} --data-dir "${dataDir}"`], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });

test("a command whose reader closes the pipe (| true) ends with status 0 and no stack trace", () => {
  expect(run("migrate").exitCode).toBe(0);
  expect(run("workspaces create --name Acme --owner-email o@example.com --owner-name Owner --password Sturdy-pass-123").exitCode).toBe(0);
  for (const cmd of ["keys create -w Acme -n one", "keys list -w Acme", "workspaces list", "users list -w Acme"]) {
    // the reader is gone before the command writes: every write meets a closed pipe
    const p = Bun.spawnSync(["bash", "-c", `set -o pipefail; "${BUN}" src/main.ts ${cmd} --data-dir "${dataDir}" | true`], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(`${cmd}: ${p.exitCode} ${p.stderr.toString()}`).toBe(`${cmd}: 0 `);
  }
  // and with a reader, all is printed as before
  const listed = run("keys list -w Acme");
  expect(listed.exitCode).toBe(0);
  expect(listed.stdout.toString()).toContain("one");
}, 60_000);

test("an invitation to an address whose part before @ is over 64 characters is refused with 400 naming email", async () => {
  const t = await createTestApp();
  try {
    const ws = await createWorkspace(t);
    const long = await t.request("POST", "/api/team/invitations", { token: ws.owner.token, body: { email: `${"a".repeat(65)}@example.com`, role: "agent" } });
    expect(long.status).toBe(400);
    expect(long.body.errors.email).toMatch(/64/);
    const ok = await t.request("POST", "/api/team/invitations", { token: ws.owner.token, body: { email: `${"a".repeat(64)}@example.com`, role: "agent" } });
    expect(ok.status).toBe(201);
    const reg = await t.request("POST", "/api/auth/forgot-password", { body: { email: `${"b".repeat(65)}@example.com` } });
    expect(reg.status).toBe(400);
  } finally {
    await t.close();
  }
});
