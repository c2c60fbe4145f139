import type { AppDeps } from "../../deps.ts";
import { AppError, errors } from "../../errors.ts";
import { accessTokenFor, type PasswordLoginResult } from "../auth/login-service.ts";
import type { AuthKit } from "../auth/kit.ts";
import { startFamily } from "../auth/refresh.ts";
import { createAccount } from "../auth/repo.ts";
import { findUserByEmail, getUser, updateUser } from "../users/repo.ts";
import { ACCESS_TTL_TEXT } from "../../auth/tokens.ts";
import { grantUnlimited } from "../billing/subscription.ts";
import { anyWorkspace } from "../workspaces/repo.ts";
import { closeSetupLink, isSetupToken } from "./link.ts";
import type { SetupInput } from "./model.ts";

export interface SetupStatus {
  /** the database has no workspace yet: the start log holds a setup link */
  needsSetup: boolean;
  /** whether the token given is this server's open setup link */
  tokenValid: boolean;
  /** the server runs the simulated network: the dashboard offers a simulated scan in place of a phone */
  simNetwork: boolean;
  /** whether sign-up and log-in ask for a captcha (the screens show none when it is off) */
  captcha: boolean;
  /** where verification codes, invitations and reset links go when no mail or SMS is set up */
  codes: { email: "mail" | "outbox"; mobile: "sms" | "outbox" };
}

/** Where codes go: the dashboard says so wherever it waits for one. */
export function codeDelivery(config: AppDeps["config"]): SetupStatus["codes"] {
  return { email: config.smtpUrl ? "mail" : "outbox", mobile: config.mobileChannel === "log" ? "outbox" : "sms" };
}

/** GET /api/setup: whether the server still needs its first workspace, whether a token opens it, and what the sign-in screens must know. */
export async function setupStatus(deps: AppDeps, token: string | undefined): Promise<SetupStatus> {
  const needsSetup = !(await anyWorkspace(deps.db));
  return { needsSetup, tokenValid: needsSetup && isSetupToken(deps, token), simNetwork: deps.config.network === "sim", captcha: deps.config.captcha === "image", codes: codeDelivery(deps.config) };
}

const GONE = "This setup link is no longer valid: it works once, and only until the server restarts. While there is no workspace, the start log prints a new one";
/** A link that is gone: the whole sentence (errors.notFound names a thing and adds "not found" to it). */
const linkGone = () => new AppError("NOT_FOUND", GONE);

/**
 * POST /api/setup: the first owner (verified: the operator vouches for the addresses) and a
 * workspace on the operator's unlimited plan, then the owner is signed in. The token is
 * checked again after the password is hashed, and "no workspace yet" is checked in the
 * transaction that creates the account, so of two racing requests (or two nodes' links) only
 * the first succeeds.
 */
export async function completeSetup(kit: AuthKit, input: SetupInput): Promise<PasswordLoginResult & { workspaceId: string }> {
  const deps = kit.deps;
  if (!isSetupToken(deps, input.token)) throw linkGone();
  const passwordHash = await kit.hasher.hash(input.password);
  const now = deps.clock.now().getTime();
  const ids = { workspaceId: Bun.randomUUIDv7(), userId: Bun.randomUUIDv7() };
  await deps.db.tx(async () => {
    if (!isSetupToken(deps, input.token)) throw linkGone();
    if (await anyWorkspace(deps.db)) {
      closeSetupLink(deps); // a sign-up, or another node's link, came first: this link is done too
      throw errors.conflict("This server already has a workspace: sign in, or ask its owner for an invitation");
    }
    if (await findUserByEmail(deps.db, input.email)) throw errors.conflict("An account with this email already exists");
    await createAccount(deps.db, { ...ids, tenantName: input.tenantName, name: input.name, email: input.email, mobile: input.mobile ?? null, passwordHash, trialEndsAt: null, now });
    await updateUser(deps.db, ids.workspaceId, ids.userId, { emailVerifiedAt: now, mobileVerifiedAt: input.mobile ? now : null }, now);
    await grantUnlimited(deps, ids.workspaceId);
    // used up only once the workspace exists: a failed setup leaves the link open
    deps.db.afterCommit(() => closeSetupLink(deps));
  });
  deps.log.info("first workspace created from the setup link", { workspaceId: ids.workspaceId, userId: ids.userId });
  const user = (await getUser(deps.db, ids.workspaceId, ids.userId))!;
  return {
    accessToken: await accessTokenFor(kit, user),
    refreshToken: await startFamily(kit, user.workspaceId, user.id),
    expiresIn: ACCESS_TTL_TEXT,
    user: { id: user.id, email: user.email, role: user.role },
    workspaceId: ids.workspaceId,
  };
}
