import type { CaptchaGenerator } from "./auth/captcha.ts";
import type { PasswordHasher } from "./auth/passwords.ts";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { DB } from "./db/store.ts";
import type { EventBus } from "./events/bus.ts";
import type { JobQueue } from "./jobs/queue.ts";
import type { Logger } from "./log.ts";
import type { ApiQuota } from "./modules/apikeys/daily-quota.ts";
import type { LastUsedTracker } from "./modules/apikeys/last-used.ts";
import type { SendBatcher } from "./modules/messages/send-batch.ts";
import type { LeaseKeeper } from "./modules/sessions/leases.ts";
import type { DeliveryStore } from "./modules/webhooks/store.ts";
import type { NetworkDriver } from "./network/driver.ts";
import type { Notifier } from "./notify/notifier.ts";
import type { Limiter } from "./limits/limiter.ts";
import type { WriteHealth } from "./ops/write-health.ts";

/** Secrets of the installation (generated on first start unless configured; see secrets.ts). */
export interface Secrets {
  jwtSecret: string;
  /** 32-byte key (hex) encrypting network credentials at rest. */
  credentialKey: string;
}

/**
 * Everything a module may depend on; built once per runtime by createRuntime (runtime.ts), the
 * one place that builds and stops the stateful parts (tests build theirs through it too).
 */
export interface AppDeps {
  config: Config;
  /** the store: the only way to the database, on either engine */
  db: DB;
  clock: Clock;
  log: Logger;
  network: NetworkDriver;
  jobs: JobQueue;
  /** the one publisher of domain events (webhooks, real-time) */
  bus: EventBus;
  notifier: Notifier;
  /** draws captcha challenges (docs/authentication.md) */
  captcha: CaptchaGenerator;
  secrets: Secrets;
  version: string;
  // the in-memory state that requests share: one of each per runtime, never looked up elsewhere
  /** argon2id with one concurrency cap for every module */
  hasher: PasswordHasher;
  /** requests a minute per member and per API key, counted apart (in the database on PostgreSQL) */
  limiters: Record<"user" | "apiKey", Limiter>;
  /** the daily API-request quota: counted in memory and written in batches (flushed at stop) on SQLite, one statement a request on PostgreSQL */
  apiQuota: ApiQuota;
  /** `lastUsedAt` of API keys, written in batches (flushed at stop) */
  lastUsed: LastUsedTracker;
  /** the webhook deliveries' prepared statements */
  deliveries: DeliveryStore;
  /** groups concurrent sends into shared transactions */
  sends: SendBatcher;
  /** whether writes go through (a full disk): background writers report here, /ready reads it */
  writeHealth: WriteHealth;
  /** this node's session leases: which sessions it may link, and their fencing tokens (docs/cluster.md) */
  leases: LeaseKeeper;
}
