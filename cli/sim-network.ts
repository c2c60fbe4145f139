import { writeOut, writeErr } from "../src/node/tty.ts";
import type { Command } from "commander";

interface Flags {
  port: string;
  host: string;
  dataDir: string;
  autoReceipts?: boolean;
  qrRotateMs: string;
  qrMaxRotations: string;
}

function intFlag(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    writeErr(`parley: --${name} must be a whole number from ${min} to ${max}\n`);
    process.exit(1);
  }
  return n;
}

/** `parley sim-network`: the simulated network as a process of its own, which nodes link to (docs/sim-network.md). */
export function simNetworkCommand(program: Command): void {
  program
    .command("sim-network")
    .description("run the simulated network as its own process; nodes link to it with --network sim --sim-url")
    .requiredOption("--port <port>", "port to listen on (0: any free port)")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .requiredOption("--data-dir <dir>", "where the network keeps its state, sim-sent.jsonl and sim-links.jsonl")
    .option("--auto-receipts", "send delivered and read receipts by itself after each send")
    .option("--qr-rotate-ms <ms>", "how often a pending QR code is replaced", "20000")
    .option("--qr-max-rotations <n>", "QR codes shown before pairing times out", "6")
    .action(async (flags: Flags) => {
      const { startSimNetwork } = await import("../src/network/sim-network/server.ts");
      const net = startSimNetwork({
        port: intFlag("port", flags.port, 0, 65535),
        host: flags.host,
        dataDir: flags.dataDir,
        sim: {
          autoReceipts: flags.autoReceipts === true,
          qrRotateMs: intFlag("qr-rotate-ms", flags.qrRotateMs, 100, 600_000),
          qrMaxRotations: intFlag("qr-max-rotations", flags.qrMaxRotations, 1, 100),
        },
      });
      // one line on stdout once listening, as `parley serve` prints
      writeOut(JSON.stringify({ listening: net.url, port: net.port }) + "\n");
      let stopping = false;
      const stop = () => {
        if (stopping) process.exit(130);
        stopping = true;
        net.stop().then(
          () => process.exit(0),
          (err) => {
            writeErr(`parley: sim network stop failed: ${(err as Error).message}\n`);
            process.exit(1);
          },
        );
      };
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
    });
}
