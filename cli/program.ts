import { writeErr, writeOut } from "../src/node/tty.ts";
import { Command } from "commander";
import { VERSION } from "../src/version.ts";

/** Adds a command to the program; `argv` is the command line being run (a command may register less for it). */
type Register = (program: Command, argv: readonly string[]) => void;

/**
 * Each command's module, imported only when that command runs (or for the whole help): a command
 * loads its own code and never the server's (the HTTP app, the network drivers, the terminal UI)
 * unless it is the server. Dynamic imports are separate chunks of the compiled binary, so a
 * command like `parley workspaces list` starts in a fraction of the server's time, and
 * `parley --version` loads none of them.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  serve: async () => (await import("./serve.ts")).serveCommand,
  migrate: async () => (await import("./migrate.ts")).migrateCommand,
  "migrate-data": async () => (await import("./migrate-data.ts")).migrateDataCommand,
  outbox: async () => (await import("./outbox.ts")).outboxCommand,
  workspaces: async () => (await import("./workspaces.ts")).workspacesCommand,
  users: async () => (await import("./users.ts")).usersCommand,
  keys: async () => (await import("./keys.ts")).keysCommand,
  plan: async () => (await import("./plan.ts")).planCommand,
  pair: async () => (await import("./pair-command.ts")).pairCommand,
  sessions: async () => (await import("./sessions.ts")).sessionsCommand,
  nodes: async () => (await import("./nodes.ts")).nodesCommand,
  sim: async () => (await import("./sim.ts")).simCommand,
  "sim-network": async () => (await import("./sim-network.ts")).simNetworkCommand,
  backup: async () => (await import("./ops.ts")).opsCommands,
  restore: async () => (await import("./ops.ts")).opsCommands,
  health: async () => (await import("./ops.ts")).opsCommands,
  campaigns: async () => (await import("./campaigns-command.ts")).campaignsCommand,
  contacts: async () => (await import("./contacts-command.ts")).contactsCommand,
  doctor: async () => (await import("./doctor.ts")).doctorCommand,
};

/** Arguments that print the version: nothing to load. */
const VERSION_ARGS = new Set(["-v", "--version", "version"]);

/**
 * The `parley` command line for `argv`: the command it names, with its module loaded; every
 * command when it names none (the help, an unknown command's error lists them all).
 */
export async function buildProgram(argv: readonly string[] = process.argv): Promise<Command> {
  const program = new Command()
    .name("parley")
    .description("Parley: a self-hostable multi-tenant messaging platform in one binary")
    .version(VERSION, "-v, --version", "print the version")
    .showHelpAfterError()
    // the version, help and usage errors straight to the descriptors (node/tty.ts: not the streams)
    .configureOutput({ writeOut, writeErr })
    // the binary starts with JIT tier-up thresholds raised (`--compile-jit-policy`), which only
    // pays while a program starts: every command but `serve` (which waits until it listens) is
    // back to the normal policy before its action runs
    .hook("preAction", (_program, action) => {
      if (action.name() !== "serve") Bun.unsafe.setJITPolicy(1);
    });
  const name = argv[2] ?? "";
  const loaders = VERSION_ARGS.has(name) ? [] : Object.hasOwn(COMMANDS, name) ? [COMMANDS[name]!] : Object.values(COMMANDS);
  const registered = new Set<Register>();
  for (const register of await Promise.all(loaders.map((load) => load()))) {
    if (registered.has(register)) continue; // backup, restore and health are one module
    registered.add(register);
    register(program, argv);
  }
  program
    .command("version")
    .description("print the version")
    .action(() => void writeOut(`parley ${VERSION}\n`));
  return program;
}
