import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, type TestApp } from "../helpers/app.ts";

// Redocly's CLI with the `recommended` rules (redocly.yaml at the repository root) on the
// document the server serves. Offline: telemetry and the update check are switched off, and
// the document has no external $ref for it to fetch.

const ROOT = join(import.meta.dir, "../..");
// a run of the CLI takes 2 to 5 s on a busy machine
const LINT_TIMEOUT = 60_000;
interface Report {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; location: { pointer: string }[]; message: string }[];
}

/** `redocly lint` of a file with the repository's redocly.yaml; its JSON report. */
function lint(path: string): { exitCode: number; report: Report } {
  const run = Bun.spawnSync(["node", join(ROOT, "node_modules/@redocly/cli/bin/cli.js"), "lint", path, "--config", join(ROOT, "redocly.yaml"), "--format", "json"], {
    cwd: ROOT,
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
  });
  const out = run.stdout.toString();
  if (!out.includes("{")) throw new Error(`redocly printed no report: ${run.stderr.toString()}`);
  return { exitCode: run.exitCode, report: JSON.parse(out.slice(out.indexOf("{"))) as Report };
}

let t: TestApp;
let file: string;
let text: string;
beforeAll(async () => {
  t = await createTestApp();
  text = await (await t.app.handle(new Request("http://localhost/openapi.json"))).text();
  file = join(mkdtempSync(join(tmpdir(), "parley-openapi-")), "openapi.json");
  writeFileSync(file, text);
});
afterAll(() => t.close());

test("redocly lint (recommended rules) finds no error in the served document", () => {
  const { exitCode, report } = lint(file);
  const errors = report.problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
  expect(errors).toEqual([]);
  expect(report.totals.errors).toBe(0);
  expect(exitCode).toBe(0);
  // the only warnings redocly.yaml explains: /health and /ready answer no 4xx
  const warned = report.problems.filter((p) => p.severity === "warn").map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);
  expect(warned.sort()).toEqual(["operation-4xx-response #/paths/~1health/get/responses", "operation-4xx-response #/paths/~1ready/get/responses"]);
}, LINT_TIMEOUT);

test("the lint fails a document with a fault (the check is live)", () => {
  const doc = JSON.parse(text);
  delete doc.paths["/health"].get.security;
  doc.servers = [];
  const bad = file.replace(/openapi\.json$/, "bad.json");
  writeFileSync(bad, JSON.stringify(doc));
  const { exitCode, report } = lint(bad);
  expect(exitCode).not.toBe(0);
  const rules = report.problems.filter((p) => p.severity === "error").map((p) => p.ruleId);
  expect(rules).toEqual(expect.arrayContaining(["security-defined", "no-empty-servers"]));
}, LINT_TIMEOUT);

test("the served document is byte-stable: the same bytes on every request and in every new server", async () => {
  expect(await (await t.app.handle(new Request("http://localhost/openapi.json"))).text()).toBe(text);
  const other = await createTestApp();
  try {
    expect(await (await other.app.handle(new Request("http://localhost/openapi.json"))).text()).toBe(text);
  } finally {
    await other.close();
  }
});
