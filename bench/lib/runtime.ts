// An in-process runtime for the benches whose load is internal (queue drain, inbound, fan-out).
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { SimDriver, type SimOptions } from "../../src/network/sim/driver.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import { engineDatabase } from "./engine.ts";
import { seed, type Seeded } from "./seed.ts";
import { benchDir } from "./tmp.ts";

/** A file-backed runtime (WAL, as in production) or a fresh PostgreSQL database (`--engine postgres`) on the sim network, seeded. */
export async function benchRuntime(config: Record<string, unknown> = {}, sessions = 1, sim: Partial<SimOptions> = {}): Promise<{ rt: Runtime; sim: SimDriver; s: Seeded }> {
  const databaseUrl = await engineDatabase();
  const cfg = loadConfig({ dataDir: benchDir("parley-bench-"), network: "sim", logLevel: "silent", port: 0, rateLimitPerMinute: 1_000_000, ...(databaseUrl ? { databaseUrl } : {}), ...config });
  const driver = new SimDriver(sim);
  const rt = await createRuntime(cfg, silentLogger, { network: driver });
  const s = await seed(rt, driver, sessions);
  return { rt, sim: driver, s };
}
