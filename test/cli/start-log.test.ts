import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshPostgres, testEngine } from "../helpers/postgres.ts";
import { spawnServer } from "../helpers/process.ts";

// What a newcomer reads after `npm start`: where the dashboard is, the one-time setup link
// while there is no workspace, and where codes go without mail or SMS.

// a loaded machine may be slow to print them: waits up to a minute, and only that long when they never come
async function logsWhen(server: { logs(): string }, needle: string): Promise<string> {
  for (let i = 0; i < 6000 && !server.logs().includes(needle); i++) await Bun.sleep(10);
  return server.logs();
}

test("the first start prints the dashboard URL, a setup link that works once, and where codes go", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-start-"));
  // on the suite's engine: a server on PostgreSQL counts its workspaces there
  const pg = testEngine === "postgres" ? await freshPostgres() : undefined;
  const env = { PARLEY_LOG_FORMAT: "json", PARLEY_LOG_LEVEL: "info", ...(pg ? { PARLEY_DATABASE_URL: pg.url } : {}) };
  try {
    await firstAndSecondStart(dataDir, env);
  } finally {
    await pg?.drop();
  }
});

async function firstAndSecondStart(dataDir: string, env: Record<string, string>): Promise<void> {
  const server = await spawnServer({ dataDir, env });
  try {
    const lines = (await logsWhen(server, "parley outbox")).split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    const dashboard = lines.find((l) => l.msg === "dashboard");
    expect(dashboard.url).toBe(`${server.url}/app/`);
    const setup = lines.find((l) => String(l.msg).includes("one-time link"));
    expect(setup.url).toStartWith(`${server.url}/app/setup?token=`);
    expect(lines.some((l) => String(l.msg).startsWith("email is not set up") && String(l.msg).includes("parley outbox"))).toBe(true);
    expect(lines.some((l) => String(l.msg).startsWith("SMS is not set up"))).toBe(true);
    // the link's page is the dashboard; its token opens the setup
    expect((await fetch(setup.url)).status).toBe(200);
    const token = new URL(setup.url).searchParams.get("token")!;
    const body = { token, name: "Asha Rao", email: "asha@example.com", password: "Sturdy-pass-123", confirmPassword: "Sturdy-pass-123", tenantName: "Shop" };
    const made = await fetch(`${server.url}/api/setup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(made.status).toBe(201);
  } finally {
    await server.stop();
  }
  // the next start has a workspace: no setup link any more
  const again = await spawnServer({ dataDir, env });
  try {
    const logs = await logsWhen(again, "parley outbox");
    expect(logs).toContain('"msg":"dashboard"');
    expect(logs).not.toContain("one-time link");
  } finally {
    await again.stop();
  }
}
