import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";
import { deleteUnverifiedUser, unverifiedUsersSince, usersSql } from "../users/repo.ts";

const DAY = 86_400_000;
/** notifications (and the log outbox) are kept this long */
export const NOTIFICATION_RETENTION_DAYS = 30;

/** Deletes spent auth rows: expired captchas, old codes, challenges, reset and refresh tokens, old notifications. */
export async function pruneAuthRows(deps: Pick<AppDeps, "db" | "clock">): Promise<void> {
  const now = deps.clock.now().getTime();
  const db = deps.db;
  await db.tx(async () => {
    await db.prepare("DELETE FROM captchas WHERE expires_at <= ?").run(now);
    // codes are kept an hour past expiry: the hourly send cap counts them
    await db.prepare("DELETE FROM otp_codes WHERE expires_at <= ? AND created_at <= ?").run(now, now - 2 * 3_600_000);
    await db.prepare("DELETE FROM login_challenges WHERE expires_at <= ?").run(now - DAY);
    await db.prepare("DELETE FROM password_resets WHERE expires_at <= ?").run(now - DAY);
    await db.prepare("DELETE FROM refresh_tokens WHERE expires_at <= ? OR revoked_at <= ?").run(now, now - 7 * DAY);
    await db.prepare("DELETE FROM notifications WHERE created_at <= ?").run(now - NOTIFICATION_RETENTION_DAYS * DAY);
  });
}

/** an account whose verification is still incomplete this long after registering is deleted */
export const UNVERIFIED_ACCOUNT_TTL_HOURS = 24;

/**
 * Deletes accounts whose verification is incomplete 24 hours after registering, so a squatter
 * cannot hold an email forever; the workspace goes too (with everything in it, by cascade) when
 * the account is its only member. Incomplete means the email is unverified (see `nextStep`:
 * registration verifies it last, invitations verify it at once). Safe to run twice.
 */
export async function purgeUnverifiedAccounts(deps: Pick<AppDeps, "db" | "clock" | "log">): Promise<number> {
  const cutoff = deps.clock.now().getTime() - UNVERIFIED_ACCOUNT_TTL_HOURS * 3_600_000;
  const db = deps.db;
  const stale = await unverifiedUsersSince(db, cutoff);
  let purged = 0;
  for (const u of stale) {
    const deleted = await db.tx(async () => {
      // re-checked in the statements: the account may have verified since the select
      const alone = (await db.prepare(`DELETE FROM workspaces WHERE id = ? AND ${usersSql.soleUnverifiedMember("?", "?")}`).run(u.workspaceId, u.workspaceId, u.id, u.workspaceId, u.id)).changes;
      const user = alone ? 0 : await deleteUnverifiedUser(db, u.workspaceId, u.id);
      return { alone, user };
    });
    if (deleted.alone || deleted.user) {
      purged++;
      deps.log.info("unverified account deleted", { workspaceId: u.workspaceId, userId: u.id, workspaceDeleted: deleted.alone > 0 });
    }
  }
  return purged;
}

/** The auth module's periodic jobs. */
export function authPeriodicJobs(deps: AppDeps): PeriodicJob[] {
  return [
    { name: "auth.prune", schedule: "*/10 * * * *", run: () => pruneAuthRows(deps) },
    { name: "auth.purge-unverified", schedule: "*/15 * * * *", run: async () => void (await purgeUnverifiedAccounts(deps)) },
  ];
}
