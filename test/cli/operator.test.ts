import { beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { createKey } from "../../cli/keys.ts";
import { withDataDir, type OperatorContext } from "../../cli/operator.ts";
import { printPlans, setPlan, updatePlan } from "../../cli/plan.ts";
import { listUsers } from "../../cli/users.ts";
import { listWorkspaces } from "../../cli/workspaces.ts";
import { loadConfig } from "../../src/config.ts";
import { migrate } from "../../src/db/migrate.ts";
import { openStore } from "../../src/db/open.ts";
import { BUN, ROOT } from "../helpers/process.ts";

const dataDir = mkdtempSync(join(tmpdir(), "parley-cli-"));
const config = loadConfig({ dataDir });
const wsId = Bun.randomUUIDv7();
const ownerId = Bun.randomUUIDv7();

/** Runs an operator function against the data dir and returns what it printed. */
async function run(fn: (ctx: OperatorContext) => void | Promise<void>): Promise<string> {
  const lines: string[] = [];
  await withDataDir(config, fn, (l) => lines.push(l));
  return lines.join("\n");
}

const cli = async (...args: string[]) => {
  const p = Bun.spawn([BUN, join(ROOT, "src/main.ts"), ...args, "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe", cwd: ROOT });
  const [out, err, code] = [await new Response(p.stdout).text(), await new Response(p.stderr).text(), await p.exited];
  return { out, err, code };
};

beforeAll(async () => {
  // operator commands refuse a data dir without a database: make it as the server would
  const db = openStore(config);
  await migrate(db);
  await db.close();
  await run(async (ctx) => {
    const now = Date.now();
    await ctx.db
      .prepare("INSERT INTO workspaces (id, name, plan_id, subscription_status, trial_ends_at, created_at, updated_at) VALUES (?, 'Acme', 'growth', 'trialing', ?, ?, ?)")
      .run(wsId, now + 14 * 86_400_000, now, now);
    await ctx.db
      .prepare(
        "INSERT INTO users (id, workspace_id, email, name, password_hash, role, mobile_verified_at, email_verified_at, created_at, updated_at) VALUES (?, ?, 'owner@acme.test', 'Owner', 'x', 'owner', ?, ?, ?, ?)",
      )
      .run(ownerId, wsId, now, now, now, now);
  });
});

describe("operator CLI (opens the data dir's database, docs/operations.md)", () => {
  test("workspaces list", async () => {
    const out = await run((ctx) => listWorkspaces(ctx));
    expect(out).toContain(wsId);
    expect(out).toMatch(/Acme\s+growth\s+trialing\s+1\s+owner@acme\.test/);
    const json = JSON.parse(await run((ctx) => listWorkspaces(ctx, true)));
    expect(json[0]).toMatchObject({ id: wsId, name: "Acme", planId: "growth", status: "trialing", members: 1, owner: "owner@acme.test" });
  });

  test("users list --workspace by name or id", async () => {
    expect(await run((ctx) => listUsers(ctx, "Acme"))).toMatch(/owner@acme\.test\s+Owner\s+owner\s+true/);
    expect(await run((ctx) => listUsers(ctx, wsId))).toContain(ownerId);
    await expect(run((ctx) => listUsers(ctx, "Nope"))).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  test("keys create prints a working key once; only its hash is stored", async () => {
    const out = await run((ctx) => createKey(ctx, "Acme", "ci"));
    const key = out.split("\n")[0]!;
    expect(key).toMatch(/^pk_[0-9A-Za-z]{40}$/);
    const db = new Database(join(dataDir, "parley.db"), { readonly: true });
    const row = db.query("SELECT workspace_id, name FROM api_keys WHERE key_hash = ?").get(createHash("sha256").update(key).digest("hex"));
    db.close();
    expect(row).toEqual({ workspace_id: wsId, name: "ci" });
    await expect(run((ctx) => createKey(ctx, "Acme", ""))).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });

  test("plan set: manual billing activates a period and records an invoice", async () => {
    const out = await run((ctx) => setPlan(ctx, wsId, "pro", "annual"));
    expect(out).toContain("plan pro, status active, interval annual");
    const db = new Database(join(dataDir, "parley.db"), { readonly: true });
    expect(db.query("SELECT plan_id, subscription_status, billing_provider FROM workspaces WHERE id = ?").get(wsId)).toEqual({
      plan_id: "pro",
      subscription_status: "active",
      billing_provider: "manual",
    });
    expect(db.query("SELECT provider, amount_paise FROM invoices WHERE workspace_id = ?").all(wsId)).toEqual([{ provider: "manual", amount_paise: 5_999_000 }]);
    db.close();
    await expect(run((ctx) => setPlan(ctx, wsId, "pro", "weekly"))).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    await expect(run((ctx) => setPlan(ctx, wsId, "platinum", "monthly"))).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    expect(await run((ctx) => setPlan(ctx, "Acme", "free", "monthly"))).toContain("plan free, status free");
  });

  test("plan update changes the catalogue, or adds a plan", async () => {
    await run((ctx) => updatePlan(ctx, "pro", { sessions: "12", monthly: "6499" }));
    await run((ctx) => updatePlan(ctx, "enterprise", { name: "Enterprise", monthly: "19999", annual: "199990", sessions: "50", campaigns: "yes" }));
    const plans = JSON.parse(await run((ctx) => printPlans(ctx, true)));
    expect(plans.find((p: any) => p.id === "pro")).toMatchObject({ monthlyPaise: 649_900, limits: { sessions: 12 } });
    expect(plans.find((p: any) => p.id === "enterprise")).toMatchObject({ name: "Enterprise", annualPaise: 19_999_000, limits: { sessions: 50, campaigns: true } });
    await expect(run((ctx) => updatePlan(ctx, "new", { name: "No prices" }))).rejects.toThrow("does not exist");
    await expect(run((ctx) => updatePlan(ctx, "pro", { sessions: "-1" }))).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });

  test("the commands are registered in the binary's program, and errors exit 1 with one line", async () => {
    const created = await cli("keys", "create", "--workspace", "Acme", "--name", "from-shell");
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/^pk_[0-9A-Za-z]{40}\n/);
    const listed = await cli("workspaces", "list");
    expect(listed.out).toContain(wsId);
    const missing = await cli("users", "list", "--workspace", "Nope");
    expect(missing.code).toBe(1);
    expect(missing.err.trim()).toBe('parley: Workspace "Nope" not found');
  });
});
