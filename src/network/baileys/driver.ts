import { DriverEmitter } from "../emitter.ts";
import { NetworkError, type DriverListener, type NetworkDriver, type OutboundMessage } from "../driver.ts";
import type { Logger } from "../../log.ts";

/** Placeholder until the baileys integration lands (issue 5): every call reports the network unavailable. */
export class BaileysDriver implements NetworkDriver {
  readonly name = "baileys" as const;
  private emitter = new DriverEmitter();
  constructor(private opts: { log: Logger; dataDir: string }) {}
  onEvent(listener: DriverListener) {
    return this.emitter.on(listener);
  }
  async connect(): Promise<void> {
    throw new NetworkError("the baileys network driver is not available in this build", false, "unavailable");
  }
  async requestPairingCode(): Promise<string> {
    throw new NetworkError("the baileys network driver is not available in this build", false, "unavailable");
  }
  async disconnect(): Promise<void> {}
  async send(_s: string, _m: OutboundMessage): Promise<{ networkMessageId: string }> {
    throw new NetworkError("the baileys network driver is not available in this build", false, "unavailable");
  }
  async shutdown(): Promise<void> {}
}
