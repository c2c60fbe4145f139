import { Command } from "commander";
import { VERSION } from "../src/version.ts";
import { campaignsCommand } from "./campaigns-command.ts";
import { contactsCommand } from "./contacts-command.ts";
import { doctorCommand } from "./doctor.ts";
import { keysCommand } from "./keys.ts";
import { migrateCommand } from "./migrate.ts";
import { migrateDataCommand } from "./migrate-data.ts";
import { nodesCommand } from "./nodes.ts";
import { opsCommands } from "./ops.ts";
import { outboxCommand } from "./outbox.ts";
import { planCommand } from "./plan.ts";
import { pairCommand } from "./pair-command.ts";
import { sessionsCommand } from "./sessions.ts";
import { simCommand } from "./sim.ts";
import { simNetworkCommand } from "./sim-network.ts";
import { serveCommand } from "./serve.ts";
import { usersCommand } from "./users.ts";
import { workspacesCommand } from "./workspaces.ts";

/** The `parley` command line; every command registers itself here. */
export function buildProgram(): Command {
  const program = new Command()
    .name("parley")
    .description("Parley: a self-hostable multi-tenant messaging platform in one binary")
    .version(VERSION, "-v, --version", "print the version")
    .showHelpAfterError()
    // the binary starts with JIT tier-up thresholds raised (`--compile-jit-policy`), which only
    // pays while a program starts: every command but `serve` (which waits until it listens) is
    // back to the normal policy before its action runs
    .hook("preAction", (_program, action) => {
      if (action.name() !== "serve") Bun.unsafe.setJITPolicy(1);
    });
  serveCommand(program);
  migrateCommand(program);
  migrateDataCommand(program);
  outboxCommand(program);
  workspacesCommand(program);
  usersCommand(program);
  keysCommand(program);
  planCommand(program);
  pairCommand(program);
  sessionsCommand(program);
  nodesCommand(program);
  simCommand(program);
  simNetworkCommand(program);
  opsCommands(program);
  campaignsCommand(program);
  contactsCommand(program);
  doctorCommand(program);
  program
    .command("version")
    .description("print the version")
    .action(() => void process.stdout.write(`parley ${VERSION}\n`));
  return program;
}
