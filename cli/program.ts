import { Command } from "commander";
import { VERSION } from "../src/version.ts";
import { campaignsCommand } from "./campaigns.tsx";
import { contactsCommand } from "./contacts.tsx";
import { keysCommand } from "./keys.ts";
import { migrateCommand } from "./migrate.ts";
import { outboxCommand } from "./outbox.ts";
import { planCommand } from "./plan.ts";
import { pairCommand } from "./pair.tsx";
import { sessionsCommand } from "./sessions.ts";
import { simCommand } from "./sim.ts";
import { serveCommand } from "./serve.ts";
import { usersCommand } from "./users.ts";
import { workspacesCommand } from "./workspaces.ts";

/** The `parley` command line; every command registers itself here. */
export function buildProgram(): Command {
  const program = new Command()
    .name("parley")
    .description("Parley: a self-hostable multi-tenant messaging platform in one binary")
    .version(VERSION, "-v, --version-flag", "print the version")
    .showHelpAfterError();
  serveCommand(program);
  migrateCommand(program);
  outboxCommand(program);
  workspacesCommand(program);
  usersCommand(program);
  keysCommand(program);
  planCommand(program);
  pairCommand(program);
  sessionsCommand(program);
  simCommand(program);
  campaignsCommand(program);
  contactsCommand(program);
  program
    .command("version")
    .description("print the version")
    .action(() => void process.stdout.write(`parley ${VERSION}\n`));
  return program;
}
