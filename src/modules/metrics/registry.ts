import { statSync } from "node:fs";
import { join } from "node:path";
import type { Metric, Registry } from "prom-client";
import type { AppDeps } from "../../deps.ts";
import { instruments } from "./counters.ts";
import { loopLagHistogram } from "./loop-lag.ts";

type Deps = Pick<AppDeps, "db" | "config" | "clock" | "bus" | "version" | "leases">;

/** Message events and the direction and status each one means. */
const MESSAGE_EVENTS: Record<string, [direction: string, status: string]> = {
  message_sent: ["outbound", "sent"],
  message_delivered: ["outbound", "delivered"],
  message_read: ["outbound", "read"],
  message_failed: ["outbound", "failed"],
  message_received: ["inbound", "received"],
};

/**
 * What a scrape reads. Queued messages name their partial index: left to itself the planner
 * counts them by scanning the (workspace, status, id) index of every message ever sent, 47 ms
 * a scrape per million messages with the event loop held, against 0.1 ms through the index
 * that holds only the queue (a test checks every plan). These are SQLite's; PostgreSQL's
 * planner takes the partial index by itself (POSTGRES_SCRAPE_SQL).
 */
export const SCRAPE_SQL = {
  sessions: "SELECT status, count(*) AS n FROM chat_sessions GROUP BY status",
  queuedMessages: "SELECT count(*) AS n FROM messages INDEXED BY messages_queue_idx WHERE status = 'queued'",
  dueDeliveries: "SELECT count(*) AS n FROM webhook_deliveries WHERE status IN ('pending', 'retrying')",
  pendingJobs: "SELECT count(*) AS n FROM jobs WHERE status = 'pending'",
  oldestDueJob: "SELECT min(run_at) AS at FROM jobs WHERE status = 'pending' AND run_at <= ?1 AND (lease_until IS NULL OR lease_until < ?1)",
  pages: "SELECT (SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size()) AS bytes",
} as const;

/** SCRAPE_SQL on PostgreSQL: no index hints, and no file sizes (the server's own monitoring has them). */
const POSTGRES_SCRAPE_SQL: Omit<Record<keyof typeof SCRAPE_SQL, string>, "pages"> = {
  ...SCRAPE_SQL,
  queuedMessages: "SELECT count(*) AS n FROM messages WHERE status = 'queued'",
};

/**
 * The registry behind GET /metrics: the process-wide counters, plus gauges read from the
 * database when scraped. Each scrape query walks an index (sessions by status, the queued-message
 * and due-delivery partial indexes, the jobs due index), never a whole table.
 */
export function createMetricsRegistry(deps: Deps): { registry: Registry; close(): void } {
  // loaded here, not at import: only a server with a metrics token builds a registry
  const { Gauge, Registry } = require("prom-client") as typeof import("prom-client");
  const { httpDuration, webhookAttempts, messageTransitions, campaignSends, undecryptable, realtimeClosed, realtimeDropped } = instruments();
  const registry = new Registry();
  for (const m of [httpDuration, webhookAttempts, messageTransitions, campaignSends, undecryptable, realtimeClosed, realtimeDropped, loopLagHistogram()] as Metric[]) registry.registerMetric(m);
  const unsubscribe = deps.bus.subscribe((e) => {
    const labels = MESSAGE_EVENTS[e.event];
    if (labels) messageTransitions.inc({ direction: labels[0], status: labels[1] });
  });
  const sqlite = deps.db.engine === "sqlite";
  const text = (k: keyof typeof POSTGRES_SCRAPE_SQL) => (sqlite ? SCRAPE_SQL[k] : POSTGRES_SCRAPE_SQL[k]);
  const count = async (k: "queuedMessages" | "dueDeliveries" | "pendingJobs") => (await deps.db.prepare<{ n: number }>(text(k)).get())!.n;

  new Gauge({
    name: "parley_build_info",
    help: "The running build",
    labelNames: ["version"] as const,
    registers: [registry],
    collect() {
      this.set({ version: deps.version }, 1);
    },
  });
  new Gauge({
    name: "parley_sessions",
    help: "Sessions by status",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const rows = await deps.db.prepare<{ status: string; n: number }>(text("sessions")).all();
      this.reset();
      for (const s of ["disconnected", "qr_pending", "connected"]) this.set({ status: s }, 0);
      for (const r of rows) this.set({ status: r.status }, r.n);
    },
  });
  new Gauge({
    name: "parley_queue_depth",
    help: "Work waiting: outbound messages queued, webhook deliveries pending or retrying, jobs pending",
    labelNames: ["queue"] as const,
    registers: [registry],
    async collect() {
      const [messages, deliveries, jobs] = await Promise.all([count("queuedMessages"), count("dueDeliveries"), count("pendingJobs")]);
      this.set({ queue: "messages" }, messages);
      this.set({ queue: "webhook_deliveries" }, deliveries);
      this.set({ queue: "jobs" }, jobs);
    },
  });
  new Gauge({
    name: "parley_job_queue_lag_seconds",
    help: "How long the oldest due, unclaimed job has been waiting (0 when none is)",
    registers: [registry],
    async collect() {
      const now = deps.clock.now().getTime();
      const at = (await deps.db.prepare<{ at: number | null }>(text("oldestDueJob")).get(now))?.at ?? null;
      this.set(at === null ? 0 : Math.max(0, now - at) / 1000);
    },
  });
  if (sqlite) {
    new Gauge({
      name: "parley_sqlite_bytes",
      help: "SQLite database file and write-ahead log sizes",
      labelNames: ["file"] as const,
      registers: [registry],
      async collect() {
        this.set({ file: "database" }, (await deps.db.prepare<{ bytes: number }>(SCRAPE_SQL.pages).get())!.bytes);
        this.set({ file: "wal" }, fileSize(join(deps.config.dataDir, "parley.db-wal")));
      },
    });
  }
  // this node's session leases (docs/cluster.md); each node of a cluster answers for itself
  const node = deps.config.nodeId;
  new Gauge({
    name: "parley_session_leases",
    help: "Sessions whose lease this node holds",
    labelNames: ["node"] as const,
    registers: [registry],
    collect() {
      this.set({ node }, deps.leases.heldIds().length);
    },
  });
  new Gauge({
    name: "parley_session_lease_moves",
    help: "Since start: sessions this node took over from another node (takeover), gave away to even the load (handoff), and times it closed every link because it could not renew in time (expiry)",
    labelNames: ["node", "kind"] as const,
    registers: [registry],
    collect() {
      this.set({ node, kind: "takeover" }, deps.leases.takeovers);
      this.set({ node, kind: "handoff" }, deps.leases.handedOff);
      this.set({ node, kind: "expiry" }, deps.leases.expiries);
    },
  });
  new Gauge({
    name: "parley_process_memory_bytes",
    help: "Process memory: resident set, JavaScript heap used and total, external",
    labelNames: ["kind"] as const,
    registers: [registry],
    collect() {
      const m = process.memoryUsage();
      this.set({ kind: "rss" }, m.rss);
      this.set({ kind: "heap_used" }, m.heapUsed);
      this.set({ kind: "heap_total" }, m.heapTotal);
      this.set({ kind: "external" }, m.external);
    },
  });
  return { registry, close: unsubscribe };
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
