import type { Command } from "commander";
import type { PairFlags } from "./pair.tsx";
import { operatorOptions, runOperator } from "./operator.ts";

/**
 * `parley pair <session>`. The pairing screen (Ink, React, the terminal QR) is imported when
 * the command runs, so `parley serve` and the other commands never load it.
 */
export function pairCommand(program: Command): void {
  operatorOptions(program.command("pair <session>").description("pair a session from the terminal: shows the QR code (or, with --code, a code to type on the phone) until the phone links"))
    .option("--timeout <seconds>", "give up after this long", "180")
    .option("--code <phone>", "link by phone number instead of QR: prints the 8-character code to type on that phone")
    .action((ref: string, flags: PairFlags) =>
      runOperator(async () => {
        const { pair } = await import("./pair.tsx");
        const code = await pair(ref, flags);
        process.exit(code);
      }),
    );
}
