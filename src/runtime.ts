import { buildApp, type App } from "./app.ts";
import { systemClock, type Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { migrate } from "./db/migrate.ts";
import { checkpointWhenBusy } from "./db/checkpointer.ts";
import { openStore } from "./db/open.ts";
import { sqliteOf } from "./db/sqlite.ts";
import type { AppDeps, Secrets } from "./deps.ts";
import { EventBus } from "./events/bus.ts";
import { JobQueue } from "./jobs/queue.ts";
import type { Logger } from "./log.ts";
import type { NetworkDriver } from "./network/driver.ts";
import { createNetwork } from "./network/select.ts";
import { imageCaptcha, type CaptchaGenerator } from "./auth/captcha.ts";
import { ChannelNotifier } from "./notify/channel-notifier.ts";
import type { Notifier } from "./notify/notifier.ts";
import { loadSecrets } from "./secrets.ts";
import { createServices, type Services } from "./services.ts";
import { sessionManager } from "./modules/sessions/manager.ts";
import { seedPlans } from "./modules/billing/plans.ts";
import { VERSION } from "./version.ts";
import { setDefaultCountry } from "./http/phone.ts";

export interface Runtime {
  deps: AppDeps;
  services: Services;
  app: App;
  /** Stops services and jobs, shuts the network down and closes the database. */
  close(): Promise<void>;
}

export interface RuntimeOverrides {
  /** SQLite only: ":memory:" for tests; default `<dataDir>/parley.db`. */
  dbPath?: string;
  clock?: Clock;
  network?: NetworkDriver;
  secrets?: Secrets;
  notifier?: Notifier;
  /** captcha challenges (tests inject one whose answers they know) */
  captcha?: CaptchaGenerator;
}

/** Opens and migrates the database and builds deps, services and the app. */
export async function createRuntime(config: Config, log: Logger, o: RuntimeOverrides = {}): Promise<Runtime> {
  setDefaultCountry(config.defaultCountry);
  const db = openStore(config, { path: o.dbPath, onError: (err) => log.error("after-commit callback failed", { err }) });
  let checkpointer: { stop(): Promise<void> } | undefined;
  try {
    const applied = await migrate(db);
    if (applied) log.info("database migrated", { applied, engine: db.engine });
    // SQLite: WAL checkpoints in a worker thread once writes are busy, not in the commits of requests (see checkpointer.ts)
    const sqlite = sqliteOf(db);
    // the default plans the catalogue lacks (operator edits are kept)
    await seedPlans(db, (o.clock ?? systemClock).now().getTime());
    if (sqlite && o.dbPath !== ":memory:") checkpointer = checkpointWhenBusy(sqlite, sqlite.filename);
  } catch (err) {
    await db.close();
    throw err;
  }
  const clock = o.clock ?? systemClock;
  const network = o.network ?? (await createNetwork(config, log, config.dataDir));
  const notifier =
    o.notifier ?? new ChannelNotifier({ config, db, clock, log: log.child({ component: "notify" }), network });
  const deps: AppDeps = {
    config,
    db,
    clock,
    log,
    network,
    jobs: new JobQueue(db, clock, log.child({ component: "jobs" }), { concurrency: config.jobConcurrency, pollMs: config.jobPollMs }),
    bus: new EventBus(db, clock, log.child({ component: "events" })),
    notifier,
    captcha: o.captcha ?? imageCaptcha,
    secrets: o.secrets ?? (await loadSecrets(config, db)),
    version: VERSION,
  };
  const services = createServices(deps);
  const app = buildApp(deps);
  let closed = false;
  return {
    deps,
    services,
    app,
    async close() {
      if (closed) return;
      closed = true;
      // Order matters for inbound: the network closes (and hands over what it already took)
      // while messaging still listens, so no message is acknowledged to the network and then
      // dropped. Sessions stop first (no reconnect starts), running sends finish before that.
      sessionManager(deps).stop();
      await deps.jobs.stop(config.shutdownTimeoutMs);
      await deps.network.shutdown();
      await services.stop();
      if (notifier instanceof ChannelNotifier) notifier.close();
      await checkpointer?.stop();
      await db.close();
    },
  };
}
