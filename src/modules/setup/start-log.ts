import type { AppDeps } from "../../deps.ts";
import type { Logger } from "../../log.ts";
import { openSetupLink } from "./link.ts";
import { codeDelivery } from "./service.ts";

/**
 * What a newcomer needs from the start log, after "listening": the dashboard's address, the
 * one-time setup link while the database has no workspace, and where codes go when no mail or
 * SMS is set up.
 */
export async function logFirstSteps(deps: AppDeps, log: Logger, dashboardUrl: string): Promise<void> {
  log.info("dashboard", { url: dashboardUrl });
  const setup = await openSetupLink(deps, dashboardUrl);
  // warn: the one line a first start must not hide, even at a quieter log level
  if (setup) log.warn("no workspace yet: open this one-time link in a browser to create the owner account and workspace (valid until used or the next restart)", { url: setup });
  const codes = codeDelivery(deps.config);
  if (codes.email === "outbox") log.info("email is not set up (no smtpUrl): verification codes, invitations and reset links go to the local outbox; read them with `parley outbox`");
  if (codes.mobile === "outbox") log.info("SMS is not set up (mobileChannel log): mobile codes go to the local outbox; read them with `parley outbox`");
}
