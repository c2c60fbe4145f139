import { expect, test } from "bun:test";
import { join } from "node:path";
import { configSchema, flagName, loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { BUN, ROOT } from "../helpers/process.ts";

const parley = (args: string[], env: Record<string, string> = {}) => {
  const p = Bun.spawnSync([BUN, join(ROOT, "src/main.ts"), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
};

test("an error names a flag only when the command has it", () => {
  expect(() => loadConfig({}, { PARLEY_PORT: "eighty" }, { flagKeys: ["dataDir"] })).toThrow(/^Invalid setting port \(PARLEY_PORT\)/);
  expect(() => loadConfig({}, { PARLEY_PORT: "eighty" })).toThrow(/port \(--port \/ PARLEY_PORT\).*given by PARLEY_PORT/);
  const op = parley(["workspaces", "list", "-d", "/nonexistent"], { PARLEY_PORT: "eighty" });
  expect(op.code).toBe(2);
  expect(op.err).toContain("PARLEY_PORT");
  expect(op.err).not.toContain("--port");
});

test("settings that go together: one line, exit 2, naming flag and variable", () => {
  for (const [flags, names] of [
    [["--mobile-channel", "http"], "mobileHttpUrl (--mobile-http-url / PARLEY_MOBILE_HTTP_URL)"],
    [["--mobile-channel", "session"], "mobileSession"],
    [["--oidc-issuer", "https://idp.example"], "oidcJwksUrl"],
    [["--razorpay-key-id", "rzp_test"], "razorpayKeySecret"],
    [["--webhook-ca-file", "/nonexistent/ca.pem"], "webhookCaFile (--webhook-ca-file / PARLEY_WEBHOOK_CA_FILE): no file at /nonexistent/ca.pem"],
  ] as const) {
    const r = parley(["serve", "-d", "/nonexistent/never", ...flags]);
    expect({ flags, code: r.code, lines: r.err.trim().split("\n").length }).toEqual({ flags, code: 2, lines: 1 });
    expect(r.err).toContain(names);
  }
});

test("every setting is also a serve flag", () => {
  const help = parley(["serve", "--help"]).out;
  const missing = Object.keys(configSchema().shape).filter((k) => !help.includes(flagName(k) + " "));
  expect(missing).toEqual([]);
  // and the flag reaches the setting (a bad value is refused naming it)
  const r = parley(["serve", "--webhook-timeout-ms", "5", "-d", "/nonexistent/never"]);
  expect(r.code).toBe(2);
  expect(r.err).toContain("webhookTimeoutMs (--webhook-timeout-ms / PARLEY_WEBHOOK_TIMEOUT_MS)");
});

test("parley --version and -v print the version", async () => {
  const { VERSION } = await import("../../src/version.ts");
  for (const flag of ["--version", "-v"]) {
    const r = parley([flag]);
    expect({ flag, code: r.code, out: r.out.trim() }).toEqual({ flag, code: 0, out: VERSION });
  }
});

test("NO_COLOR: the pretty log has no ANSI colour", async () => {
  const { colorEnabled } = await import("../../cli/context.ts");
  expect(colorEnabled({ NO_COLOR: "1" })).toBe(false);
  expect(colorEnabled({ NO_COLOR: "" })).toBe(true);
  expect(colorEnabled({})).toBe(true);
  const lines: string[] = [];
  createLogger({ level: "info", format: "pretty", color: colorEnabled({ NO_COLOR: "1" }), write: (l) => lines.push(l) }).warn("plain", { a: 1 });
  createLogger({ level: "info", format: "pretty", write: (l) => lines.push(l) }).warn("coloured");
  expect(lines[0]).not.toContain("\x1b[");
  expect(lines[0]).toMatch(/WARN  plain a=1$/);
  expect(lines[1]).toContain("\x1b[33m");
});
