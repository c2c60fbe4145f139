import type { Command } from "commander";
import { operatorOptions, runOperator, type OperatorFlags } from "./operator.ts";

// `parley contacts`: the progress screen (Ink, React) is imported when the command runs, so
// `parley serve` and the other commands never load it (./contacts.tsx)

/** `parley contacts import <file.csv> --workspace W`. */
export function contactsCommand(program: Command): void {
  const contacts = program.command("contacts").description("contacts of a workspace on the running server");
  operatorOptions(contacts.command("import <file>").description("import a CSV of contacts (header with phone; name, tags, optedOut, other columns become attributes), with a progress bar"))
    .option("--interval <ms>", "how often the progress is read", "250")
    .action((file: string, flags: OperatorFlags & { interval: string }) =>
      runOperator(async () => {
        const { importFile } = await import("./contacts.tsx");
        process.exit(await importFile(file, flags));
      }),
    );
}
