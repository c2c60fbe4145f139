import { expect, test } from "bun:test";
import { Command } from "commander";
import { addConfigFlags, flagsGiven, SERVE_FLAG_KEYS } from "../../cli/config-flags.ts";

/** What `parley serve <args>` hands its action (or the error commander writes), with the flags registered as `only` says. */
function parse(args: string[], only: readonly string[] | null): { flags?: Record<string, unknown>; error?: string } {
  let flags: Record<string, unknown> | undefined;
  let error = "";
  const program = new Command().exitOverride().configureOutput({ writeOut: () => {}, writeErr: (s) => void (error += s) });
  addConfigFlags(program.command("serve"), only)
    .exitOverride()
    .action((f) => void (flags = f));
  try {
    program.parse(["node", "parley", "serve", ...args]);
  } catch {
    return { error };
  }
  return { flags };
}

test("serve registers only the flags it is given, and reads them exactly as with every flag registered", () => {
  const cases = [
    [],
    ["--network", "sim", "--port", "4000", "--data-dir", "/srv/parley", "--log-level", "silent"],
    ["-p", "4000", "-d", "/srv/parley"],
    ["--port=4000", "--host=0.0.0.0", "--cors-origins", "https://a.example, https://b.example"],
    ["--trust-proxy", "--port", "4000"],
    ["--trust-proxy", "false", "--webhook-allow-http"],
    ["--host", "--port"], // a value that is itself a flag's name
    ["--port", "1", "--port", "2"],
  ];
  for (const args of cases) {
    const given = flagsGiven(args);
    expect({ args, given: given !== null }).toEqual({ args, given: true });
    expect({ args, parsed: parse(args, given) }).toEqual({ args, parsed: parse(args, null) });
    expect({ args, read: parse(args, given).flags !== undefined }).toEqual({ args, read: true });
  }
});

test("anything but the settings' flags registers every flag: help, errors and suggestions as before", () => {
  for (const args of [["--help"], ["-h"], ["--prot", "4000"], ["--port", "4000", "--"], ["-p=4000"], ["--host", "-x"], ["--no-trust-proxy"]]) {
    expect({ args, given: flagsGiven(args) }).toEqual({ args, given: null });
  }
  // the full registration is what answers those: an unknown flag still gets its suggestion
  expect(parse(["--prot", "4000"], null).error).toContain("(Did you mean --port?)");
  expect(SERVE_FLAG_KEYS.length).toBeGreaterThan(50);
});
