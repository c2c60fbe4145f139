import { z } from "zod";
import { RUNTIME_DEFAULTS } from "./config-quick.ts";

export { RUNTIME_DEFAULTS };

// The settings of Parley, each a function that builds its zod schema: building all of them
// (~300 zod schemas) costs a start more than reading them does, so a process builds only the
// schemas of the settings it was given (config.ts); the values of the others come from
// config-defaults.macro.ts, computed when the binary is built, and the few settings operator
// commands are given are checked without zod (config-quick.ts).

const bool = () =>
  z.preprocess((v) => {
    if (typeof v !== "string") return v;
    const s = v.trim().toLowerCase();
    if (["1", "true", "yes", "on"].includes(s)) return true;
    if (["0", "false", "no", "off"].includes(s)) return false;
    return v;
  }, z.boolean());

const list = () =>
  z.preprocess(
    (v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v),
    z.array(z.string()),
  );

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const optionalString = () => z.preprocess((v) => (v === "" ? undefined : v), z.string().optional());
const optionalUrl = () => z.preprocess((v) => (v === "" ? undefined : v), z.url().optional());

/** Every setting, in the order of the schema. Each key is also `--kebab-case` (serve) and `PARLEY_SNAKE_CASE`. */
export const SETTINGS = {
  host: () => z.string().min(1).default("127.0.0.1"),
  port: () => int(0, 65535).default(3000),
  dataDir: () => z.string().min(1).default("./data"),
  network: () => z.enum(["baileys", "sim"]).default("baileys"),
  logLevel: () => z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  logFormat: () => z.enum(["auto", "json", "pretty"]).default("auto"),
  /** Public base URL used in links in mail; defaults to http://host:port. */
  publicUrl: () => optionalUrl(),
  corsOrigins: () => list().default([]),
  /**
   * `postgres://…` or `postgresql://…`: every row lives in that PostgreSQL database (14 or
   * later) and no SQLite file is written. Unset: SQLite at `<dataDir>/parley.db`.
   */
  databaseUrl: () => z.preprocess(
    (v) => (v === "" ? undefined : v),
    z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/, "must be a postgres:// or postgresql:// URL")
      .optional(),
  ),
  /** This node's name in a cluster (the nodes table, leases, /health); default: host name and process id. */
  nodeId: () => z.preprocess(
    (v) => (v === "" ? undefined : v),
    z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,100}$/, "must be 1-100 letters, digits, dots, dashes, colons or underscores")
      .default(RUNTIME_DEFAULTS.nodeId),
  ),
  /**
   * How long a node's hold on a session lasts without renewal. Renewed every quarter of it; a
   * node that cannot renew closes its links at 70 % of it; another node takes the session over
   * once it expired (docs/cluster.md).
   */
  sessionLeaseMs: () => int(2_000, 600_000).default(10_000),
  /**
   * Where media files live: `s3://bucket[/prefix]` (any S3-compatible store; endpoint, region
   * and keys from the standard `S3_*` / `AWS_*` variables) or a directory. Unset:
   * `<dataDir>/media`. The nodes of a cluster share one.
   */
  mediaUrl: () => z.preprocess(
    (v) => (v === "" ? undefined : v),
    z
      .string()
      .refine((v) => !v.startsWith("s3:") || /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[^\s]*)?$/.test(v), "must be s3://bucket or s3://bucket/prefix, or a directory")
      .optional(),
  ),
  /** Connections each process keeps to PostgreSQL. */
  databasePoolSize: () => int(1, 200).default(10),
  /** Country (two letters, e.g. IN) of phone numbers written without their country code; unset: every number needs one. */
  defaultCountry: () => z.preprocess(
    (v) => (v === "" ? undefined : typeof v === "string" ? v.trim().toUpperCase() : v),
    z.string().regex(/^[A-Z]{2}$/, "must be a two-letter country code such as IN, GB or US").optional(),
  ),
  /** SQLite synchronous pragma: NORMAL (WAL, safe on process crash) or FULL (also safe on power loss). */
  dbSynchronous: () => z.enum(["normal", "full"]).default("normal"),
  jsonBodyLimit: () => int(1024, 64 * 1024 * 1024).default(1024 * 1024),
  mediaBodyLimit: () => int(1024, 512 * 1024 * 1024).default(110 * 1024 * 1024),
  jobConcurrency: () => int(1, 64).default(4),
  jobPollMs: () => int(10, 60_000).default(500),
  shutdownTimeoutMs: () => int(0, 120_000).default(10_000),
  /** HS256 signing key for access tokens; generated into the data dir when absent. */
  jwtSecret: () => z.preprocess((v) => (v === "" ? undefined : v), z.string().min(32, "must be at least 32 characters").optional()),
  jwtIssuer: () => z.string().min(1).default("parley"),
  jwtAudience: () => z.string().min(1).default("parley-dashboard"),
  captcha: () => z.enum(["image", "off"]).default("image"),
  smtpUrl: () => optionalUrl(),
  mailFrom: () => z.string().default("Parley <no-reply@localhost>"),
  mobileChannel: () => z.enum(["log", "session", "http"]).default("log"),
  /** The session that sends mobile codes (channel `session`): its id, never its name, since names are per workspace. */
  mobileSession: () => z
    .preprocess((v) => (v === "" ? undefined : v), z.uuid("must be a session id (UUID), see `parley sessions list`").optional())
    .describe("session id, see `parley sessions list`"),
  mobileHttpUrl: () => optionalUrl(),
  oidcIssuer: () => optionalString(),
  oidcAudience: () => optionalString(),
  oidcJwksUrl: () => optionalUrl(),
  trialDays: () => int(0, 365).default(14),
  trialEndPolicy: () => z.enum(["free", "pause"]).default("free"),
  rateLimitPerMinute: () => int(1, 1_000_000).default(600),
  authRateLimitPerMinute: () => int(1, 1_000_000).default(10),
  /** failed logins per account and IP within loginFailureWindowMinutes before 429 (docs/authentication.md) */
  loginFailureLimit: () => int(1, 1000).default(5),
  loginFailureWindowMinutes: () => int(1, 1440).default(15),
  /** argon2id hashes computed at once; the rest wait (a login flood cannot exhaust the machine) */
  passwordHashConcurrency: () => int(1, 64).default(2),
  /** take the client IP from X-Forwarded-For (only behind a reverse proxy that sets it) */
  trustProxy: () => bool().default(false),
  webhookAllowHttp: () => bool().default(false),
  webhookAllowPrivate: () => bool().default(false),
  webhookTimeoutMs: () => int(100, 120_000).default(10_000),
  webhookRetentionDays: () => int(1, 3650).default(30),
  /** Delays (seconds) before each delivery attempt, after the previous one failed (docs/webhooks.md); jittered. */
  webhookRetrySchedule: () => z.preprocess(
    (v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean).map(Number) : v),
    z.array(z.number().int().min(0).max(7 * 86_400)).min(1).max(50),
  ).default([0, 10, 60, 300, 1800, 7200, 21600, 43200]),
  /** Extra CA certificate(s), PEM file, trusted for webhook receivers (besides the system roots). */
  webhookCaFile: () => optionalString(),
  webhookConcurrency: () => int(1, 1024).default(32),
  webhookConcurrencyPerWebhook: () => int(1, 64).default(4),
  simAutoReceipts: () => bool().default(false),
  /** How often the sim network replaces a pending QR code, and how many it shows before giving up. */
  simQrRotateMs: () => int(100, 600_000).default(20_000),
  simQrMaxRotations: () => int(1, 100).default(6),
  /**
   * With `--network sim`: the address of a separate sim network process (`parley sim-network`)
   * the node links its sessions through; unset, the sim runs inside the node.
   */
  simUrl: () => z.preprocess((v) => (v === "" ? undefined : v), z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional()),
  /** How long POST connect waits for the first QR (or the link) before answering qr_pending anyway. */
  sessionConnectWaitMs: () => int(0, 120_000).default(15_000),
  /** Longest gap between two sessions reconnecting at start-up (each gap is drawn from 20-100 % of it). */
  sessionRestoreGapMs: () => int(0, 60_000).default(250),
  /** Interval of WebSocket keepalive pings on /api/ws. */
  wsPingIntervalMs: () => int(1000, 600_000).default(25_000),
  /**
   * Bytes of events a /api/ws socket may have waiting to be written (its client reads too
   * slowly, or not at all). A socket past it for 5 s, or 8 times past it, is closed with
   * 4009, which tells the dashboard to reload, instead of growing the server's memory or
   * losing events in silence.
   */
  wsMaxBufferedBytes: () => int(16 * 1024, 64 * 1024 * 1024).default(256 * 1024),
  /** Open /api/ws sockets one user may hold at once (each dashboard tab holds one); more are refused with 429. */
  wsMaxSocketsPerUser: () => int(1, 1000).default(10),
  sendMinGapMs: () => int(0, 600_000).default(1000),
  sendJitterMs: () => int(0, 600_000).default(500),
  /** Attempts of one outbound message on transient network failures before it fails. */
  sendMaxAttempts: () => int(1, 100).default(8),
  /** One send on the network: past it the attempt counts as a transient failure. */
  sendTimeoutMs: () => int(10, 3_600_000).default(60_000),
  /** Whole fetch of a send request's `mediaUrl`. */
  mediaFetchTimeoutMs: () => int(100, 600_000).default(30_000),
  /**
   * WhatsApp Web version baileys announces: `latest` (the default: fetched, cached a day in the
   * data dir, baileys' bundled one when it cannot be fetched), `bundled` (baileys' own), or `a.b.c`.
   */
  waVersion: () => z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.string().regex(/^(latest|bundled|\d+\.\d+\.\d+)$/, "must be latest, bundled or a version like 2.3000.1023223821").default("latest"),
  ),
  /**
   * The phone's history a new link downloads: `off` (only the small parts baileys needs:
   * names and LID-to-number mappings) or `recent` (also the recent chats, up to
   * waHistorySyncMaxMb). Parley does not import old messages either way.
   */
  waHistorySync: () => z.enum(["off", "recent"]).default("off"),
  /** The messaging network's WebSocket address (a stand-in for tests, or a relay the operator runs); `doctor network` checks it too. */
  waWebSocketUrl: () => z.url({ protocol: /^wss?$/, error: "must be a ws:// or wss:// URL" }).default("wss://web.whatsapp.com/ws/chat"),
  waHistorySyncMaxMb: () => int(1, 1024).default(16),
  /** A baileys socket that receives no frame for this long is closed and reconnected (0: off). */
  waWatchdogMs: () => int(0, 3_600_000)
    .refine((v) => v === 0 || v >= 10_000, "must be 0 (off) or at least 10000")
    .default(90_000),
  razorpayKeyId: () => optionalString(),
  razorpayKeySecret: () => optionalString(),
  razorpayWebhookSecret: () => optionalString(),
  razorpayApiBase: () => z.url().default("https://api.razorpay.com"),
  /** Bearer token of GET /metrics (docs/operations.md); without it the route answers 404. */
  metricsToken: () => z.preprocess((v) => (v === "" ? undefined : v), z.string().min(16, "must be at least 16 characters").optional()),
};
