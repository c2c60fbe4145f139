import type { Command } from "commander";
import { operatorOptions, runOperator, type OperatorFlags } from "./sessions.ts";

/**
 * `parley pair <session>`. The pairing screen (Ink, React, the terminal QR) is imported when
 * the command runs, so `parley serve` and the other commands never load it.
 */
export function pairCommand(program: Command): void {
  operatorOptions(program.command("pair <session>").description("pair a session from the terminal: shows the QR code until the phone links"))
    .option("--timeout <seconds>", "give up after this long", "180")
    .action((ref: string, flags: OperatorFlags & { timeout: string }) =>
      runOperator(async () => {
        const { pair } = await import("./pair.tsx");
        const code = await pair(ref, flags);
        process.exit(code);
      }),
    );
}
