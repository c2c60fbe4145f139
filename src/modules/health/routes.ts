import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { ok } from "../../http/envelope.ts";
import { bundledMigrationCount } from "../../db/migrate.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { healthDoc, readyDoc } from "../docs/schemas.ts";
import type { RoutedApp } from "../../http/routed-app.ts";

/** A passed write probe is trusted this long: a flood of /ready costs at most one write a second. */
const WRITE_PROBE_TTL_MS = 1000;

/** Liveness and readiness probes. */
export function healthRoutes(deps: Pick<AppDeps, "db" | "version" | "clock" | "writeHealth" | "config">) {
  const started = deps.clock.now().getTime();
  let lastWriteOk = -Infinity;

  /** A real commit: the transaction takes the write lock, the upsert is durable on COMMIT (SQLite: in the WAL). */
  const writeProbe = async (now: number) => {
    if (now - lastWriteOk >= 0 && now - lastWriteOk < WRITE_PROBE_TTL_MS) return;
    const stmt = deps.db.prepare("INSERT INTO health_probe (id, checked_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at");
    await deps.db.tx(async () => void (await stmt.run(now)));
    lastWriteOk = now;
  };

  const step = async <T>(what: string, fn: () => T | Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      lastWriteOk = -Infinity;
      throw new AppError("INTERNAL_ERROR", `Not ready: ${what}`, { status: 503, cause: err });
    }
  };

  return (app: RoutedApp) => app
    .get("/health", () => ok({ status: "ok", version: deps.version, node: deps.config.nodeId, uptimeSeconds: Math.round((deps.clock.now().getTime() - started) / 1000) }), {
      detail: { tags: ["health"], summary: "Liveness: the process answers", responses: envelopeResponses({ data: healthDoc }) },
    })
    .get(
      "/ready",
      async () => {
        const n = await step("the database does not answer", async () => (await deps.db.prepare<{ n: number }>("SELECT count(*) AS n FROM __drizzle_migrations").get())!.n);
        if (n < bundledMigrationCount(deps.db.engine)) await step("migrations are pending", () => { throw new Error("migrations pending"); });
        // a background writer's failed write counts at once: the probe's own write, a small one,
        // can still fit where a campaign's cannot, and it is trusted for a second after it passed
        const failing = deps.writeHealth.failing;
        if (failing) await step("the database refuses writes (disk full, read-only file or lock held)", () => { throw new Error(`${failing.what}: ${failing.error}`); });
        await step("the database refuses writes (disk full, read-only file or lock held)", () => writeProbe(deps.clock.now().getTime()));
        return ok({ status: "ready", database: "ok", writable: true, migrations: n });
      },
      { detail: { tags: ["health"], summary: "Readiness: the database answers, is migrated and takes a write (503 otherwise)", responses: envelopeResponses({ data: readyDoc, errors: [503] }) } },
    );
}
