// A second connection to the same database file, in a worker: proves the quota checks hold
// across connections (not only because one process runs one statement at a time).
import { ManualClock } from "../../../src/clock.ts";
import { loadConfig } from "../../../src/config.ts";
import { openSqliteStore } from "../../../src/db/sqlite.ts";
import { silentLogger } from "../../../src/log.ts";
import { PasswordHasher } from "../../../src/auth/passwords.ts";
import { DailyApiQuota } from "../../../src/modules/apikeys/daily-quota.ts";
import { consumeQuota } from "../../../src/modules/billing/quota.ts";
import { invite } from "../../../src/modules/team/invitations.ts";

declare const self: Worker;

self.onmessage = async (e: MessageEvent) => {
  const { dbPath, op, workspaceId, now, items } = e.data as { dbPath: string; op: "consume" | "invite"; workspaceId: string; now: number; items: string[] };
  const { db } = openSqliteStore(dbPath);
  const deps = {
    db,
    clock: new ManualClock(now),
    config: loadConfig({ logLevel: "silent" }),
    log: silentLogger,
    notifier: { sendEmail: async () => {}, sendMobile: async () => {} },
    hasher: new PasswordHasher(1),
    apiQuota: new DailyApiQuota(db),
  };
  const results = await Promise.all(
    items.map(async (item) => {
      try {
        if (op === "consume") await consumeQuota(deps, workspaceId, "messagesPerMonth");
        else await invite(deps, workspaceId, { email: item, role: "agent" }, null);
        return "ok";
      } catch (err) {
        return (err as { code?: string }).code ?? String(err);
      }
    }),
  );
  await db.close();
  self.postMessage(results);
};
