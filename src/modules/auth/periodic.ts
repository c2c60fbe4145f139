import type { AppDeps } from "../../deps.ts";
import type { PeriodicJob } from "../../jobs/periodic.ts";

const DAY = 86_400_000;
/** notifications (and the log outbox) are kept this long */
export const NOTIFICATION_RETENTION_DAYS = 30;

/** Deletes spent auth rows: expired captchas, old codes, challenges, reset and refresh tokens, old notifications. */
export function pruneAuthRows(deps: Pick<AppDeps, "sqlite" | "clock">): void {
  const now = deps.clock.now().getTime();
  const db = deps.sqlite;
  db.transaction(() => {
    db.query("DELETE FROM captchas WHERE expires_at <= ?").run(now);
    // codes are kept an hour past expiry: the hourly send cap counts them
    db.query("DELETE FROM otp_codes WHERE expires_at <= ? AND created_at <= ?").run(now, now - 2 * 3_600_000);
    db.query("DELETE FROM login_challenges WHERE expires_at <= ?").run(now - DAY);
    db.query("DELETE FROM password_resets WHERE expires_at <= ?").run(now - DAY);
    db.query("DELETE FROM refresh_tokens WHERE expires_at <= ? OR revoked_at <= ?").run(now, now - 7 * DAY);
    db.query("DELETE FROM notifications WHERE created_at <= ?").run(now - NOTIFICATION_RETENTION_DAYS * DAY);
  })();
}

/** The auth module's periodic jobs. */
export function authPeriodicJobs(deps: AppDeps): PeriodicJob[] {
  return [{ name: "auth.prune", schedule: "*/10 * * * *", run: () => pruneAuthRows(deps) }];
}
