import { writeOut, writeErr } from "../src/node/tty.ts";
import type { Command } from "commander";
import { formatReport } from "../src/ops/network-doctor.ts";
import { configOrExit } from "./context.ts";

/**
 * `parley doctor network [--json]`: from this host, without a phone, whether the messaging
 * network can be reached (name resolution, TLS, the WebSocket upgrade, the first answer), in
 * one line per step. Exit 0 only when it is reachable, 1 when not, 2 on bad flags.
 */
export function doctorCommand(program: Command): void {
  const doctor = program.command("doctor").description("check this host's setup");
  doctor
    .command("network")
    .description("can this host reach the messaging network? name resolution, TLS, WebSocket upgrade, first frame (exit 0 only when reachable)")
    .option("--json", "print the report as JSON")
    .option("--timeout-ms <ms>", "longest wait of each step", "10000")
    .option("--wa-web-socket-url <url>", "the network's WebSocket address (env PARLEY_WA_WEB_SOCKET_URL, default wss://web.whatsapp.com/ws/chat)")
    .action(async (flags: { json?: boolean; timeoutMs: string; waWebSocketUrl?: string }) => {
      const config = await configOrExit(flags.waWebSocketUrl ? { waWebSocketUrl: flags.waWebSocketUrl } : {}, ["waWebSocketUrl"]);
      const timeoutMs = Number(flags.timeoutMs);
      if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 120_000) {
        writeErr("parley: --timeout-ms must be a whole number of milliseconds from 100 to 120000\n");
        process.exit(2);
      }
      const { diagnoseNetwork } = await import("../src/ops/network-doctor.ts");
      const report = await diagnoseNetwork(config.waWebSocketUrl, { timeoutMs });
      writeOut(flags.json ? JSON.stringify(report, null, 2) + "\n" : formatReport(report));
      // the sockets of a failed step may linger: the verdict is out, leave now
      process.exit(report.reachable ? 0 : 1);
    });
}
