import { index, integer, text } from "drizzle-orm/sqlite-core";
import { sqliteTable } from "../db/lazy-table.ts";

/** Durable jobs: a row is the truth; the worker only leases it. Times are unix ms. */
export const jobs = sqliteTable(
  "jobs",
  () => ({
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    payload: text("payload", { mode: "json" }).notNull(),
    /** pending (waiting or leased), done, failed (attempts exhausted) */
    status: text("status", { enum: ["pending", "done", "failed"] }).notNull().default("pending"),
    runAt: integer("run_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(10),
    leaseUntil: integer("lease_until"),
    lastError: text("last_error"),
    /** Optional key: at most one pending job per key (e.g. one sender per session). */
    dedupeKey: text("dedupe_key"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  }),
  (t) => [
    index("jobs_due_idx").on(t.status, t.runAt),
    index("jobs_dedupe_idx").on(t.dedupeKey, t.status),
  ],
);
