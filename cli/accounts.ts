import { z } from "zod";
import { PasswordHasher } from "../src/auth/passwords.ts";
import { randomFrom } from "../src/crypto/random.ts";
import { errors } from "../src/errors.ts";
import { emailField, mobileField, newPasswordField } from "../src/modules/auth/model.ts";
import { createAccount } from "../src/modules/auth/repo.ts";
import { findUserByEmail, insertInvitedMember, updateUser } from "../src/modules/users/repo.ts";
import { ROLES, type Role } from "../src/modules/users/roles.ts";
import { resolveWorkspaceRef } from "../src/modules/workspaces/service.ts";
import { findPlan, UNLIMITED_PLAN_ID } from "../src/modules/billing/plans.ts";
import { grantUnlimited, setPlanManually } from "../src/modules/billing/subscription.ts";
import type { OperatorContext } from "./operator.ts";

// The operator's way to the first account (docs/operations.md: power from the data dir): no captcha, no codes.
// The addresses are taken on the operator's word, so the accounts are verified at once.

const DAY = 86_400_000;
const label = z.string().trim().min(2, "must be 2 to 80 characters").max(80, "must be 2 to 80 characters");

const personFields = {
  name: label,
  email: emailField,
  mobile: mobileField.optional(),
  password: newPasswordField,
};
const workspaceInput = z.object({ workspace: label, ...personFields });
const userInput = z.object({ ...personFields, role: z.enum(ROLES) });

export type NewWorkspaceInput = z.input<typeof workspaceInput>;
export type NewUserInput = z.input<typeof userInput>;

/** Parses operator input or throws VALIDATION_ERROR naming the command's flags (`flags` maps a field to its flag). */
function parse<T extends z.ZodType>(schema: T, input: unknown, flags: Record<string, string>): z.infer<T> {
  const r = schema.safeParse(input);
  if (!r.success) throw errors.validation(Object.fromEntries(r.error.issues.map((i) => [flags[i.path.join(".")] ?? i.path.join("."), i.message])));
  return r.data;
}

const WORKSPACE_FLAGS = { workspace: "--name", name: "--owner-name", email: "--owner-email", mobile: "--owner-mobile", password: "password" };
const USER_FLAGS = { name: "--name", email: "--email", mobile: "--mobile", role: "--role", password: "password" };

/** A password for the operator to hand over when none was given: 20 characters, no look-alikes. */
export function generatedPassword(): string {
  return randomFrom("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", 20);
}

/**
 * A workspace with its verified owner, on its trial (docs/team-and-billing.md: Growth quotas for
 * `trialDays`) unless `plan` says otherwise: `unlimited` (the operator's own business: no quotas,
 * no billing) or a plan of the catalogue (one manual period, as `parley plan set`).
 */
export async function createWorkspaceWithOwner(ctx: OperatorContext, input: NewWorkspaceInput, plan = "trial"): Promise<{ workspaceId: string; userId: string }> {
  const v = parse(workspaceInput, input, WORKSPACE_FLAGS);
  if (plan !== "trial" && plan !== UNLIMITED_PLAN_ID && !(await findPlan(ctx.db, plan))) {
    throw errors.validation({ "--plan": `must be trial, unlimited or a plan of the catalogue (parley plan list); ${plan} is none of them` });
  }
  if (await findUserByEmail(ctx.db, v.email)) throw errors.conflict(`An account with the email ${v.email} already exists`);
  const passwordHash = await new PasswordHasher(1).hash(v.password); // one password per command: no shared cap needed
  const now = ctx.clock.now().getTime();
  const ids = { workspaceId: Bun.randomUUIDv7(), userId: Bun.randomUUIDv7() };
  // the workspace is never seen on a trial it was not given
  await ctx.db.tx(async () => {
    await createAccount(ctx.db, { ...ids, tenantName: v.workspace, name: v.name, email: v.email, mobile: v.mobile ?? null, passwordHash, trialEndsAt: now + ctx.config.trialDays * DAY, now });
    await updateUser(ctx.db, ids.workspaceId, ids.userId, { emailVerifiedAt: now, mobileVerifiedAt: v.mobile ? now : null }, now);
    if (plan === UNLIMITED_PLAN_ID) await grantUnlimited(ctx, ids.workspaceId);
    else if (plan !== "trial") await setPlanManually(ctx, ids.workspaceId, plan, "monthly");
  });
  return ids;
}

/** A verified member of an existing workspace (any role; a second owner too, as the operator says). */
export async function createUser(ctx: OperatorContext, workspaceRef: string, input: NewUserInput): Promise<{ workspaceId: string; userId: string }> {
  const ws = await resolveWorkspaceRef(ctx, workspaceRef);
  const v = parse(userInput, input, USER_FLAGS);
  if (await findUserByEmail(ctx.db, v.email)) throw errors.conflict(`An account with the email ${v.email} already exists`);
  const passwordHash = await new PasswordHasher(1).hash(v.password); // one password per command: no shared cap needed
  const now = ctx.clock.now().getTime();
  const userId = Bun.randomUUIDv7();
  await insertInvitedMember(ctx.db, ws.id, { id: userId, email: v.email, name: v.name, passwordHash, mobile: v.mobile ?? null, role: v.role as Role, at: now });
  if (v.mobile) await updateUser(ctx.db, ws.id, userId, { mobileVerifiedAt: now }, now);
  return { workspaceId: ws.id, userId };
}

/** The password of a create command: --password-stdin (first line), --password, or a generated one that is printed. */
export async function passwordFrom(flags: { password?: string; passwordStdin?: boolean }): Promise<{ password: string; generated: boolean }> {
  if (flags.passwordStdin) {
    const text = await new Response(Bun.stdin.stream()).text();
    return { password: text.split(/\r?\n/)[0] ?? "", generated: false };
  }
  if (flags.password !== undefined) return { password: flags.password, generated: false };
  return { password: generatedPassword(), generated: true };
}
