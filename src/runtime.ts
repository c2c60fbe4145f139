import { mark } from "./start-mark.ts";
import { buildApp, type App } from "./app.ts";
import { systemClock, type Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { migrate } from "./db/migrate.ts";
import { assertReachable } from "./db/reachable.ts";
import { checkpointWhenBusy } from "./db/checkpointer.ts";
import { openStore } from "./db/open.ts";
import { sqliteOf, threadWriteLock } from "./db/sqlite.ts";
import type { AppDeps, Secrets } from "./deps.ts";
import { EventBus } from "./events/bus.ts";
import type { ClusterEvents } from "./events/cluster.ts";
import { JobQueue } from "./jobs/queue.ts";
import type { Logger } from "./log.ts";
import type { NetworkDriver } from "./network/driver.ts";
import { createNetwork } from "./network/select.ts";
import { imageCaptcha, type CaptchaGenerator } from "./auth/captcha.ts";
import { PasswordHasher } from "./auth/passwords.ts";
import { limiterFor } from "./limits/limiter.ts";
import { pruneRateWindows } from "./limits/shared-limiter.ts";
import { WriteHealth } from "./ops/write-health.ts";
import { ChannelNotifier } from "./notify/channel-notifier.ts";
import type { Notifier } from "./notify/notifier.ts";
import { loadSecrets } from "./secrets.ts";
import { createServices, type Services } from "./services.ts";
import { DailyApiQuota } from "./modules/apikeys/daily-quota.ts";
import { SharedDailyApiQuota } from "./modules/apikeys/shared-daily-quota.ts";
import { flushApiKeyUsage } from "./modules/apikeys/jobs.ts";
import { LastUsedTracker } from "./modules/apikeys/last-used.ts";
import { seedPlans } from "./modules/billing/plans.ts";
import { SendBatcher } from "./modules/messages/send-batch.ts";
import { DeliveryStore } from "./modules/webhooks/store.ts";
import { LeaseKeeper } from "./modules/sessions/leases.ts";
import { VERSION } from "./version.ts";
import { setDefaultCountry } from "./http/phone.ts";
import { giveWay } from "./yield.ts";

/**
 * One Parley: the store, the deps over it, the modules' services and the app, built once by
 * createRuntime, started by `start` and stopped by `stop`/`close` (see docs/architecture-lifecycle.md).
 */
export interface Runtime {
  deps: AppDeps;
  services: Services;
  app: App;
  /** Starts the background work: the job workers, the services, the periodic jobs a moment later. */
  start(): Promise<void>;
  /** Stops everything but the store, in the order of STOP_ORDER (each part once, however often called). */
  stop(): Promise<void>;
  /** `stop`, then the WAL checkpointer and the store: the end of the runtime. */
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

/** How long after `start` the periodic jobs are scheduled (their shortest period is 30 s). */
export const PERIODIC_START_DELAY_MS = 1_000;

/**
 * The parts a runtime stops, in this order; `stop` runs all but the last two, `close` the rest.
 * Producers of work stop before what they feed, and the network closes (handing over what it
 * already took) while messaging still listens, so no message is acknowledged and then dropped.
 */
export const STOP_ORDER = [
  /** housekeeping enqueues no more work */
  "periodic",
  /** open WebSockets would hold the graceful stop of the server forever: closed with 1001 */
  "realtime",
  /** (PostgreSQL) the connection listening for the other nodes' events */
  "events.listener",
  /** (when listening) no new connections; requests under way finish */
  "http",
  /** no session reconnects or starts from here on */
  "sessions",
  /** running jobs (sends among them) finish or are released */
  "jobs",
  /** every connection closes, without unlinking */
  "network",
  /** the sessions' restore and the driver events under way are handled */
  "sessions.settled",
  /** no more inbound or receipts; the inbound messages under way are stored */
  "messaging",
  /** webhook attempts under way finish or are released */
  "webhooks",
  /** the batched lastUsedAt and daily API counts are written */
  "apikeys.usage",
  /** mail transport */
  "notifier",
  /** (SQLite file) the WAL checkpoint thread */
  "checkpointer",
  /** the database */
  "store",
] as const;
export type StopStep = (typeof STOP_ORDER)[number];

/** Opens and migrates the database and builds deps, services and the app: the one place they are built. */
export async function createRuntime(config: Config, log: Logger, o: RuntimeOverrides = {}): Promise<Runtime> {
  setDefaultCountry(config.defaultCountry);
  const db = openStore(config, { path: o.dbPath, onError: (err) => log.error("after-commit callback failed", { err }) });
  mark("store opened");
  const clock = o.clock ?? systemClock;
  let checkpointer: { stop(): Promise<void> } | undefined;
  try {
    await assertReachable(db, config);
    const applied = await migrate(db);
    if (applied) log.info("database migrated", { applied, engine: db.engine });
    // SQLite: WAL checkpoints in a worker thread once writes are busy, not in the commits of requests (see checkpointer.ts)
    mark("migrated");
    const sqlite = sqliteOf(db);
    // the default plans the catalogue lacks (operator edits are kept)
    await seedPlans(db, clock.now().getTime());
    if (sqlite && o.dbPath !== ":memory:") checkpointer = checkpointWhenBusy(sqlite, sqlite.filename, { lock: () => threadWriteLock(db)?.lock });
  } catch (err) {
    await db.close();
    throw err;
  }
  mark("plans seeded");
  const network = o.network ?? (await createNetwork(config, log, config.dataDir));
  const notifier =
    o.notifier ?? new ChannelNotifier({ config, db, clock, log: log.child({ component: "notify" }), network });
  mark("network");
  const writeHealth = new WriteHealth();
  const deps: AppDeps = {
    config,
    db,
    clock,
    log,
    network,
    jobs: new JobQueue(db, clock, log.child({ component: "jobs" }), { concurrency: config.jobConcurrency, pollMs: config.jobPollMs }, writeHealth),
    bus: new EventBus(db, clock, log.child({ component: "events" })),
    notifier,
    captcha: o.captcha ?? imageCaptcha,
    secrets: o.secrets ?? (await loadSecrets(config, db)),
    version: VERSION,
    hasher: new PasswordHasher(config.passwordHashConcurrency),
    limiters: { user: limiterFor(db, clock, "user", config.rateLimitPerMinute), apiKey: limiterFor(db, clock, "apiKey", config.rateLimitPerMinute) },
    // PostgreSQL: any node may answer a key's request, so each one is counted in the row at once
    apiQuota: db.engine === "postgres" ? new SharedDailyApiQuota(db) : new DailyApiQuota(db),
    lastUsed: new LastUsedTracker(db),
    deliveries: new DeliveryStore(db),
    sends: new SendBatcher(db),
    writeHealth,
    leases: new LeaseKeeper({ db, clock, log: log.child({ component: "leases" }), nodeId: config.nodeId, version: VERSION, leaseMs: config.sessionLeaseMs }),
  };
  mark("deps");
  const services = createServices(deps);
  mark("services");
  // PostgreSQL: the events of every node reach this node's WebSocket clients (events/cluster.ts)
  // imported here, not above: PostgreSQL's client (and its module-level work) is not loaded on SQLite
  const clusterEvents: ClusterEvents | null =
    db.engine === "postgres" && config.databaseUrl
      ? new (await import("./events/cluster.ts")).ClusterEvents(db, deps.bus, config.databaseUrl, clock, log.child({ component: "events" }))
      : null;
  if (clusterEvents) services.periodic.push({ name: "events.prune", schedule: "*/30 * * * * *", run: async () => void (await clusterEvents.prune()) });
  // PostgreSQL: the rate windows the nodes share (limits/shared-limiter.ts) are deleted once every limiter's window is over
  if (db.engine === "postgres") {
    const longest = Math.max(60_000, config.loginFailureWindowMinutes * 60_000);
    services.periodic.push({ name: "limits.prune", schedule: "37 */5 * * * *", run: async () => void (await pruneRateWindows(db, clock.nowMs() - longest)) });
  }
  const app = buildApp(deps, services);
  mark("app built");

  let periodicTimer: ReturnType<typeof setTimeout> | undefined;
  let periodic: { stop(): void } | undefined;
  let periodicStopped = false;
  const stops: Record<StopStep, () => unknown> = {
    periodic: () => {
      periodicStopped = true;
      clearTimeout(periodicTimer);
      periodic?.stop();
    },
    realtime: () => services.realtime.closeAll(1001, "server shutting down"),
    "events.listener": () => clusterEvents?.stop(),
    http: () => app.server && app.stop(false),
    sessions: () => services.sessions.stop(),
    jobs: () => deps.jobs.stop(config.shutdownTimeoutMs),
    network: () => deps.network.shutdown(),
    "sessions.settled": async () => {
      await services.restored();
      await services.sessions.settled();
      // the links are closed: other nodes may take the sessions at once
      await deps.leases.stop();
    },
    messaging: () => services.messaging.stop(),
    webhooks: () => services.webhooks.stop(config.shutdownTimeoutMs),
    "apikeys.usage": () => flushApiKeyUsage(deps),
    notifier: () => notifier instanceof ChannelNotifier && notifier.close(),
    checkpointer: () => checkpointer?.stop(),
    store: () => db.close(),
  };
  // the steps run one at a time, each at most once: `stop` then `close` goes on where `stop` ended
  let next = 0;
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  const runUntil = (end: number): Promise<void> => {
    chain = chain.catch(() => {}).then(async () => {
      for (; next < end; next++) {
        const step = STOP_ORDER[next]!;
        try {
          await stops[step]();
          log.debug("stopped", { part: step });
        } catch (err) {
          // the parts after it still stop (the store above all); the first failure is reported
          log.error("stopping failed", { part: step, err });
          failure ??= err;
        }
      }
      if (failure !== undefined) throw failure;
    });
    return chain;
  };
  let started = false;
  return {
    deps,
    services,
    app,
    async start() {
      if (started || next > 0) return;
      started = true;
      await clusterEvents?.start();
      deps.jobs.start();
      mark("jobs started");
      // housekeeping (sweeps and prunes every 30 s or more) starts a moment after the server answers:
      // croner's first schedule initialises the time-zone data, ~6 ms of every start spent before
      // the first request otherwise
      // (croner itself is imported then, not at start)
      periodicTimer = setTimeout(() => {
        void import("./jobs/periodic.ts").then(({ startPeriodic }) => {
          // a stop begun while the module loaded: nothing to start
          if (!periodicStopped) periodic = startPeriodic(services.periodic, log);
        });
      }, PERIODIC_START_DELAY_MS);
      // between its parts, the event loop answers the requests that came in meanwhile (see there);
      // a stop begun meanwhile ends it
      await services.start(async () => {
        await giveWay();
        return next === 0;
      });
    },
    stop: () => runUntil(STOP_ORDER.indexOf("checkpointer")),
    close: () => runUntil(STOP_ORDER.length),
  };
}
