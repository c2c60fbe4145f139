import { nodeCrypto } from "../../node/lazy.ts";
import { randomToken } from "../../crypto/random.ts";
import type { AppDeps } from "../../deps.ts";
import { anyWorkspace } from "../workspaces/repo.ts";

/**
 * The one-time setup link of a server whose database has no workspace yet: it lives in this
 * process only (valid until used or the next restart) and creates the first owner and workspace
 * without captcha or codes. Anyone who can read the start log can use it, which is the operator.
 * Several nodes on one PostgreSQL database each print their own link, and each link is known
 * only to the node that printed it; the first workspace created through any of them closes the
 * others (every setup checks, in its transaction, that the database still has no workspace).
 */
interface SetupLink {
  token: string;
}

const links = new WeakMap<AppDeps, SetupLink>();

/**
 * Opens the setup link when the database has no workspace; returns its URL on the dashboard
 * at `dashboardUrl` (null when there are workspaces).
 */
export async function openSetupLink(deps: AppDeps, dashboardUrl: string): Promise<string | null> {
  if (await anyWorkspace(deps.db)) return null;
  const link = { token: randomToken(24) };
  links.set(deps, link);
  return `${dashboardUrl.replace(/\/+$/, "")}/setup?token=${encodeURIComponent(link.token)}`;
}

/** Whether `token` is the open setup link of this server (constant-time). */
export function isSetupToken(deps: AppDeps, token: string | undefined): boolean {
  const link = links.get(deps);
  if (!link || !token) return false;
  const a = Buffer.from(link.token);
  const b = Buffer.from(token);
  return a.length === b.length && nodeCrypto().timingSafeEqual(a, b);
}

/** Closes the link for good (it was used). */
export function closeSetupLink(deps: AppDeps): void {
  links.delete(deps);
}
