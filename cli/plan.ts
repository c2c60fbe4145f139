import type { Command } from "commander";
import { errors } from "../src/errors.ts";
import { listPlans, upsertPlan, type PlanLimits, type PlanPatch } from "../src/modules/billing/plans.ts";
import { setPlanManually } from "../src/modules/billing/subscription.ts";
import type { QuotaResource } from "../src/modules/billing/usage.ts";
import { resolveWorkspaceRef } from "../src/modules/workspaces/service.ts";
import { configOrExit, DATA_DIR_FLAG } from "./context.ts";
import { isoOrNull, runOperator, table, withDataDir, type OperatorContext } from "./operator.ts";

/** Manual billing: puts a workspace on a plan for one interval (a manual invoice is recorded). */
export async function setPlan(ctx: OperatorContext, workspace: string, planId: string, interval: string): Promise<void> {
  if (interval !== "monthly" && interval !== "annual") throw errors.validation({ interval: "must be monthly or annual" });
  const ws = await resolveWorkspaceRef(ctx, workspace);
  const after = await setPlanManually(ctx, ws.id, planId, interval);
  ctx.out(`workspace ${after.name}: plan ${after.planId}, status ${after.subscriptionStatus}, interval ${after.billingInterval ?? "-"}, period ends ${isoOrNull(after.currentPeriodEnd) ?? "-"}`);
}

/** Prints the catalogue (prices in rupees). */
export async function printPlans(ctx: OperatorContext, json = false): Promise<void> {
  const plans = await listPlans(ctx.db);
  if (json) return ctx.out(JSON.stringify(plans, null, 2));
  const rows = plans.map((p) => ({ id: p.id, name: p.name, active: p.active, monthly: p.monthlyPaise / 100, annual: p.annualPaise / 100, ...p.limits }));
  ctx.out(table(rows, ["id", "name", "active", "monthly", "annual", "sessions", "messagesPerMonth", "contacts", "apiRequestsPerDay", "webhooks", "teamSeats", "campaigns"]));
}

const LIMIT_FLAGS: QuotaResource[] = ["sessions", "messagesPerMonth", "contacts", "apiRequestsPerDay", "webhooks", "teamSeats"];

function count(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw errors.validation({ [name]: "must be a whole number, 0 or more" });
  return n;
}

function rupeesToPaise(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw errors.validation({ [name]: "must be an amount in rupees, 0 or more" });
  return Math.round(n * 100);
}

/** Changes (or adds) a catalogue entry from command-line flags. */
export async function updatePlan(ctx: OperatorContext, id: string, flags: Record<string, string | boolean | undefined>): Promise<void> {
  if (!/^[a-z0-9][a-z0-9_-]{0,31}$/.test(id)) throw errors.validation({ plan: "must be 1-32 lower-case letters, digits, - or _" });
  const limits: Partial<PlanLimits> = {};
  for (const k of LIMIT_FLAGS) if (typeof flags[k] === "string") limits[k] = count(k, flags[k] as string);
  if (flags.campaigns !== undefined) limits.campaigns = flags.campaigns === true || flags.campaigns === "yes" || flags.campaigns === "true";
  const patch: PlanPatch = { limits };
  if (typeof flags.name === "string") patch.name = flags.name;
  if (typeof flags.monthly === "string") patch.monthlyPaise = rupeesToPaise("monthly", flags.monthly);
  if (typeof flags.annual === "string") patch.annualPaise = rupeesToPaise("annual", flags.annual);
  if (flags.active !== undefined) patch.active = flags.active === true;
  const plan = await upsertPlan(ctx.db, id, patch, ctx.clock.now().getTime());
  ctx.out(`plan ${plan.id} saved: ${plan.name}, ₹${plan.monthlyPaise / 100}/month, ₹${plan.annualPaise / 100}/year, ${JSON.stringify(plan.limits)}`);
}

/** `parley plan set|list|update`. */
export function planCommand(program: Command): void {
  const cmd = program.command("plan").description("operator: plans, the catalogue and manual billing");
  const run = (flags: { dataDir?: string }, fn: (ctx: OperatorContext) => void | Promise<void>) =>
    runOperator(() => withDataDir(configOrExit({ dataDir: flags.dataDir }), fn));
  cmd
    .command("set")
    .description("manual billing: put a workspace on a plan for one interval (free: back to the Free plan)")
    .requiredOption("-w, --workspace <idOrName>", "workspace id or exact name")
    .requiredOption("-p, --plan <planId>", "plan id (free, starter, growth, pro, ...)")
    .option("-i, --interval <interval>", "monthly or annual", "monthly")
    .option(...DATA_DIR_FLAG)
    .action((flags) => run(flags, (ctx) => setPlan(ctx, flags.workspace, flags.plan, flags.interval)));
  cmd
    .command("list")
    .description("print the plan catalogue")
    .option(...DATA_DIR_FLAG)
    .option("--json", "print JSON")
    .action((flags) => run(flags, (ctx) => printPlans(ctx, flags.json)));
  const update = cmd
    .command("update")
    .description("change a plan of the catalogue, or add one (prices in rupees)")
    .requiredOption("-p, --plan <planId>", "plan id")
    .option("--name <name>", "display name")
    .option("--monthly <rupees>", "monthly price")
    .option("--annual <rupees>", "annual price (12 months upfront)")
    .option("--campaigns <yes|no>", "whether campaigns are included")
    .option("--active", "offer the plan at checkout")
    .option("--no-active", "stop offering the plan (workspaces on it keep it)")
    .option(...DATA_DIR_FLAG);
  for (const k of LIMIT_FLAGS) update.option(`--${k.replace(/([A-Z])/g, "-$1").toLowerCase()} <n>`, `limit: ${k}`);
  update.action((flags) => run(flags, (ctx) => updatePlan(ctx, flags.plan, flags)));
}
