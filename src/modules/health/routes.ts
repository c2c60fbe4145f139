import { Elysia } from "elysia";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { ok } from "../../http/envelope.ts";
import { bundledMigrationCount } from "../../db/migrate.ts";

/** Liveness and readiness probes. */
export function healthRoutes(deps: Pick<AppDeps, "sqlite" | "version" | "clock">) {
  const started = deps.clock.now().getTime();
  return new Elysia({ tags: ["health"] })
    .get("/health", () => ok({ status: "ok", version: deps.version, uptimeSeconds: Math.round((deps.clock.now().getTime() - started) / 1000) }), {
      detail: { summary: "Liveness: the process answers" },
    })
    .get(
      "/ready",
      () => {
        try {
          deps.sqlite.query("SELECT 1").get();
          const row = deps.sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number };
          if (row.n < bundledMigrationCount()) throw new Error("migrations pending");
          return ok({ status: "ready", database: "ok", migrations: row.n });
        } catch (err) {
          throw new AppError("INTERNAL_ERROR", "Not ready: database unavailable or not migrated", { status: 503, cause: err });
        }
      },
      { detail: { summary: "Readiness: the database answers and is migrated" } },
    );
}
