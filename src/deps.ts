import type { CaptchaGenerator } from "./auth/captcha.ts";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { DB } from "./db/store.ts";
import type { EventBus } from "./events/bus.ts";
import type { JobQueue } from "./jobs/queue.ts";
import type { Logger } from "./log.ts";
import type { NetworkDriver } from "./network/driver.ts";
import type { Notifier } from "./notify/notifier.ts";

/** Secrets of the installation (generated on first start unless configured; see secrets.ts). */
export interface Secrets {
  jwtSecret: string;
  /** 32-byte key (hex) encrypting network credentials at rest. */
  credentialKey: string;
}

/** Everything a module may depend on; built once by the server (or the test harness). */
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
}
