import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { NetworkDriver } from "./driver.ts";
import { SimDriver } from "./sim/driver.ts";

/** The driver named by `--network`. */
export async function createNetwork(config: Config, log: Logger, dataDir: string): Promise<NetworkDriver> {
  if (config.network === "sim") {
    return new SimDriver({
      autoReceipts: config.simAutoReceipts,
      qrRotateMs: config.simQrRotateMs,
      qrMaxRotations: config.simQrMaxRotations,
      dataDir,
    });
  }
  const { BaileysDriver } = await import("./baileys/driver.ts");
  return new BaileysDriver({ log: log.child({ component: "baileys" }) });
}
