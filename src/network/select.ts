import type { Config } from "../config.ts";
import { hostName } from "../config-quick.ts";
import type { Logger } from "../log.ts";
import type { NetworkDriver } from "./driver.ts";
import { SimDriver } from "./sim/driver.ts";

/** The driver named by `--network`. */
export async function createNetwork(config: Config, log: Logger, dataDir: string): Promise<NetworkDriver> {
  if (config.network === "sim" && config.simUrl) {
    const { RemoteSimDriver } = await import("./sim-network/remote-driver.ts");
    return new RemoteSimDriver({ url: config.simUrl, node: process.env.PARLEY_NODE_ID || `${hostName()}-${process.pid}` });
  }
  if (config.network === "sim") {
    return new SimDriver({
      autoReceipts: config.simAutoReceipts,
      qrRotateMs: config.simQrRotateMs,
      qrMaxRotations: config.simQrMaxRotations,
      dataDir,
    });
  }
  const { BaileysDriver } = await import("./baileys/driver.ts");
  const { resolveWaVersion } = await import("./baileys/version.ts");
  const { fetchLatestWaWebVersion } = await import("baileys");
  const bl = log.child({ component: "baileys" });
  let version: ReturnType<typeof resolveWaVersion> | undefined;
  const resolve = (fresh: boolean) =>
    resolveWaVersion(config.waVersion, { dataDir, log: bl, fresh, fetchLatest: () => fetchLatestWaWebVersion({ signal: AbortSignal.timeout(10_000) }) });
  return new BaileysDriver({
    log: bl,
    logLevel: config.logLevel,
    dataDir,
    watchdogMs: config.waWatchdogMs,
    waWebSocketUrl: config.waWebSocketUrl,
    history: { mode: config.waHistorySync, maxBytes: config.waHistorySyncMaxMb * 1024 * 1024 },
    // resolved at the first connect (a fetch must not hold up start-up), again after the network refused it
    version: (fresh = false) => (fresh || !version ? (version = resolve(fresh)) : version),
  });
}
