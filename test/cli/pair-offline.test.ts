import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedWorkspace } from "../modules/sessions/operator-fixtures.ts";
import { BUN, ROOT, spawnServer } from "../helpers/process.ts";

const MAIN = join(ROOT, "src/main.ts");

test("parley pair against a server that is not running says so, without first showing the data dir's stale status", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-pair-offline-"));
  const server = await spawnServer({ dataDir });
  const parley = async (...args: string[]) => {
    const p = Bun.spawn([BUN, MAIN, ...args, "--data-dir", dataDir, "--url", server.url], { stdout: "pipe", stderr: "pipe", env: { ...process.env, PARLEY_JWT_SECRET: "" } });
    const [, err] = [await new Response(p.stdout).text(), await new Response(p.stderr).text()];
    const code = await p.exited;
    if (code !== 0) console.error(args.join(" "), err);
    return code;
  };
  try {
    seedWorkspace(dataDir, "Acme");
    expect(await parley("sessions", "create", "stale")).toBe(0);
    expect(await parley("sessions", "connect", "stale")).toBe(0);
    expect(await parley("sim", "scan", "stale", "--phone", "919812399999")).toBe(0);
  } finally {
    await server.stop();
  }
  // the data dir still says connected; nothing listens any more
  const p = Bun.spawn([BUN, MAIN, "pair", "stale", "--data-dir", dataDir, "--url", server.url, "--timeout", "20"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, PARLEY_JWT_SECRET: "", CI: "true" },
  });
  const [out, err] = [await new Response(p.stdout).text(), await new Response(p.stderr).text()];
  expect(await p.exited).not.toBe(0);
  const text = (out + err).replace(/\s+/g, " ");
  expect(text).toContain("Pairing failed");
  expect(text).toContain("is the server running?");
  expect(text).not.toContain("Status: connected");
}, 30_000);
