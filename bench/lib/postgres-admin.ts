// A PostgreSQL server a bench may create databases on: the one PARLEY_BENCH_DATABASE_URL (or
// PARLEY_TEST_DATABASE_URL) names, or a private one started for the bench (.ci/postgres.sh) and
// stopped by `stop`.
import { join } from "node:path";
import { benchDir } from "./tmp.ts";

const ROOT = join(import.meta.dir, "..", "..");

export async function postgresAdmin(): Promise<{ url: string; stop(): Promise<void> }> {
  const given = process.env.PARLEY_BENCH_DATABASE_URL || process.env.PARLEY_TEST_DATABASE_URL;
  if (given) return { url: given, stop: async () => {} };
  const dir = benchDir("parley-bench-pg-");
  const port = String(20_000 + Math.floor(Math.random() * 20_000));
  const p = Bun.spawnSync(["bash", join(ROOT, ".ci/postgres.sh"), "start", dir, port], { stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`no PostgreSQL for the bench: ${p.stderr.toString()}`);
  return { url: p.stdout.toString().trim(), stop: async () => void Bun.spawnSync(["bash", join(ROOT, ".ci/postgres.sh"), "stop", dir]) };
}
