import type { DB } from "../../db/store.ts";
import { TextMemo } from "../../memo.ts";

/** The default plan catalogue (docs/team-and-billing.md; INR, amounts in paise; annual = 12 months upfront). */
export interface PlanLimits {
  sessions: number;
  messagesPerMonth: number;
  contacts: number;
  apiRequestsPerDay: number;
  webhooks: number;
  teamSeats: number;
  campaigns: boolean;
}

export interface Plan {
  /** free, starter, growth, pro, or an id the operator added */
  id: string;
  name: string;
  currency: "INR";
  monthlyPaise: number;
  annualPaise: number;
  limits: PlanLimits;
  /** offered at checkout (an operator can retire a plan without breaking workspaces on it) */
  active?: boolean;
}

export type BillingInterval = "monthly" | "annual";

/**
 * The operator's own plan: no quotas and no billing. Given by the operator only (the setup
 * link's first workspace, `parley workspaces create --plan unlimited`, `parley plan set`); never
 * in the catalogue a workspace sees, never for sale, and it never lapses.
 */
export const UNLIMITED_PLAN_ID = "unlimited";
/** What "no quota" is in numbers: larger than any count a server reaches. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;
export const UNLIMITED_PLAN: Plan = {
  id: UNLIMITED_PLAN_ID, name: "Unlimited", currency: "INR", monthlyPaise: 0, annualPaise: 0, active: false,
  limits: { sessions: NO_LIMIT, messagesPerMonth: NO_LIMIT, contacts: NO_LIMIT, apiRequestsPerDay: NO_LIMIT, webhooks: NO_LIMIT, teamSeats: NO_LIMIT, campaigns: true },
};

/** The plan whose quotas apply during the trial (docs/team-and-billing.md). */
export const TRIAL_PLAN_ID = "growth";
/** The plan of a workspace after the trial (policy `free`) or a lapsed subscription. */
export const FREE_PLAN_ID = "free";

export const DEFAULT_PLANS: readonly Plan[] = [
  {
    id: "free", name: "Free", currency: "INR", monthlyPaise: 0, annualPaise: 0,
    limits: { sessions: 1, messagesPerMonth: 1_000, contacts: 500, apiRequestsPerDay: 1_000, webhooks: 1, teamSeats: 1, campaigns: false },
  },
  {
    id: "starter", name: "Starter", currency: "INR", monthlyPaise: 999_00, annualPaise: 9_990_00,
    limits: { sessions: 1, messagesPerMonth: 10_000, contacts: 5_000, apiRequestsPerDay: 10_000, webhooks: 3, teamSeats: 3, campaigns: true },
  },
  {
    id: "growth", name: "Growth", currency: "INR", monthlyPaise: 2_499_00, annualPaise: 24_990_00,
    limits: { sessions: 3, messagesPerMonth: 50_000, contacts: 25_000, apiRequestsPerDay: 50_000, webhooks: 10, teamSeats: 5, campaigns: true },
  },
  {
    id: "pro", name: "Pro", currency: "INR", monthlyPaise: 5_999_00, annualPaise: 59_990_00,
    limits: { sessions: 10, messagesPerMonth: 250_000, contacts: 100_000, apiRequestsPerDay: 250_000, webhooks: 25, teamSeats: 15, campaigns: true },
  },
];

/** The plan of an id in a list (throws on an unknown id). Defaults to the built-in catalogue. */
export function planById(id: string, list: readonly Plan[] = DEFAULT_PLANS): Plan {
  const p = list.find((x) => x.id === id);
  if (!p) throw new Error(`unknown plan ${id}`);
  return p;
}

interface PlanRow {
  id: string;
  name: string;
  monthlyPaise: number;
  annualPaise: number;
  limits: string;
  active: number;
}

const SELECT = 'SELECT id, name, monthly_paise AS "monthlyPaise", annual_paise AS "annualPaise", limits, active FROM plans';

/** A plan's `limits` column as limits: keys missing from an operator's edit fall back to the Free plan's, never to "unlimited". */
function parseLimits(text: string): PlanLimits {
  return { ...planById(FREE_PLAN_ID).limits, ...(JSON.parse(text) as Partial<PlanLimits>) };
}

// a catalogue has a handful of plans; edits leave old texts behind
const parsedLimits = new TextMemo<Readonly<PlanLimits>>(64);

/**
 * `parseLimits` remembered by the column's text (a pure function of it), for the API-key
 * guard, which reads a plan's limits on every request. Shared and frozen: read only.
 */
export function limitsOfText(text: string): Readonly<PlanLimits> {
  return parsedLimits.get(text, () => Object.freeze(parseLimits(text)));
}

function fromRow(row: PlanRow): Plan {
  const limits = limitsOfText(row.limits);
  return { id: row.id, name: row.name, currency: "INR", monthlyPaise: row.monthlyPaise, annualPaise: row.annualPaise, limits, active: row.active === 1 };
}

/** How many of the built-in plans the table holds. */
const SEED_CHECK = `SELECT count(*) AS n FROM plans WHERE id IN (${DEFAULT_PLANS.map(() => "?").join(", ")})`;

/** Inserts the default plans that are not in the `plans` table yet (operator edits are kept). */
export async function seedPlans(db: DB, now: number): Promise<void> {
  // every start but the first finds the catalogue there: one read says so, without a transaction
  // (nor SQLite's write lock, which another process may hold)
  const present = await db.prepare<{ n: number | string }>(SEED_CHECK).get(...DEFAULT_PLANS.map((p) => p.id));
  if (Number(present?.n) === DEFAULT_PLANS.length) return;
  const insert = db.prepare(
    `INSERT INTO plans (id, name, currency, monthly_paise, annual_paise, limits, active, sort_order, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT DO NOTHING`,
  );
  await db.tx(async () => {
    for (const [i, p] of DEFAULT_PLANS.entries()) await insert.run(p.id, p.name, p.currency, p.monthlyPaise, p.annualPaise, JSON.stringify(p.limits), i, now);
  });
}

/** The whole catalogue from the `plans` table (the built-in one before it is seeded). */
export async function listPlans(db: DB): Promise<Plan[]> {
  const rows = await db.prepare<PlanRow>(`${SELECT} ORDER BY sort_order, monthly_paise, id`).all();
  return rows.length ? rows.map(fromRow) : DEFAULT_PLANS.map((p) => ({ ...p, active: true }));
}

/** One plan of the catalogue, or null. Built-in plans answer even before seeding. */
export async function findPlan(db: DB, id: string): Promise<Plan | null> {
  if (id === UNLIMITED_PLAN_ID) return UNLIMITED_PLAN;
  const row = await db.prepare<PlanRow>(`${SELECT} WHERE id = ?`).get(id);
  if (row) return fromRow(row);
  const builtIn = DEFAULT_PLANS.find((p) => p.id === id);
  return builtIn ? { ...builtIn, active: true } : null;
}

/**
 * The limits `findPlan(id) ?? findPlan(FREE_PLAN_ID)` gives, from the stored limits text of
 * both rows (null when a row is missing): for callers that read them in one statement.
 */
export function limitsOrFree(id: string, stored: string | null, freeStored: string | null): PlanLimits {
  if (id === UNLIMITED_PLAN_ID) return UNLIMITED_PLAN.limits;
  if (stored !== null) return limitsOfText(stored);
  const builtIn = DEFAULT_PLANS.find((p) => p.id === id);
  if (builtIn) return builtIn.limits;
  return freeStored !== null ? limitsOfText(freeStored) : planById(FREE_PLAN_ID).limits;
}

/** Price of a plan for an interval, in paise. */
export function priceOf(plan: Plan, interval: BillingInterval): number {
  return interval === "annual" ? plan.annualPaise : plan.monthlyPaise;
}

export interface PlanPatch {
  name?: string;
  monthlyPaise?: number;
  annualPaise?: number;
  limits?: Partial<PlanLimits>;
  active?: boolean;
}

/**
 * Creates or changes a catalogue entry (operator CLI). A new plan needs a name and both prices.
 * The read and the write are one transaction: an edit merges into the plan as it is.
 */
export async function upsertPlan(db: DB, id: string, patch: PlanPatch, now: number): Promise<Plan> {
  if (id === UNLIMITED_PLAN_ID) throw new Error(`plan ${id} is the operator's own plan (no quotas, no billing) and cannot be edited`);
  return db.tx(() => upsertPlanNow(db, id, patch, now));
}

async function upsertPlanNow(db: DB, id: string, patch: PlanPatch, now: number): Promise<Plan> {
  const current = await findPlan(db, id);
  if (!current && (patch.name === undefined || patch.monthlyPaise === undefined || patch.annualPaise === undefined)) {
    throw new Error(`plan ${id} does not exist: give --name, --monthly and --annual to create it`);
  }
  const base = current ?? { id, name: "", currency: "INR" as const, monthlyPaise: 0, annualPaise: 0, limits: planById(FREE_PLAN_ID).limits, active: true };
  const next: Plan = {
    ...base,
    name: patch.name ?? base.name,
    monthlyPaise: patch.monthlyPaise ?? base.monthlyPaise,
    annualPaise: patch.annualPaise ?? base.annualPaise,
    limits: { ...base.limits, ...patch.limits },
    active: patch.active ?? base.active ?? true,
  };
  await db
    .prepare(
      `INSERT INTO plans (id, name, currency, monthly_paise, annual_paise, limits, active, sort_order, updated_at)
       VALUES (?1, ?2, 'INR', ?3, ?4, ?5, ?6, (SELECT coalesce(max(sort_order), 0) + 1 FROM plans), ?7)
       ON CONFLICT (id) DO UPDATE SET name = ?2, monthly_paise = ?3, annual_paise = ?4, limits = ?5, active = ?6, updated_at = ?7`,
    )
    .run(next.id, next.name, next.monthlyPaise, next.annualPaise, JSON.stringify(next.limits), next.active ? 1 : 0, now);
  return next;
}
