import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedWorkspace } from "../modules/sessions/operator-fixtures.ts";
import { BUN, ROOT, spawnServer, type ChildServer } from "../helpers/process.ts";

// `parley pair` in a real pseudo-terminal (tmux) against a real server on the sim network.

const MAIN = join(ROOT, "src/main.ts");
let dataDir: string;
let server: ChildServer;
const tmuxSocket = `parley-test-${process.pid}`;

beforeAll(async () => {
  if (!Bun.which("tmux")) throw new Error("tmux is required (apt-get install -y tmux; .ci/run installs it)");
  dataDir = mkdtempSync(join(tmpdir(), "parley-pair-"));
  // QR codes rotate every 1.5 s here, so the test sees the terminal refresh one
  server = await spawnServer({ dataDir, env: { PARLEY_SIM_QR_ROTATE_MS: "1500", PARLEY_SIM_QR_MAX_ROTATIONS: "40" } });
  seedWorkspace(dataDir, "Acme");
});
afterAll(async () => {
  Bun.spawnSync(["tmux", "-L", tmuxSocket, "kill-server"], { stderr: "ignore" });
  await server.stop();
});

/** Runs a `parley` command against the test server; returns exit code and output. */
async function parley(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([BUN, MAIN, ...args, "--data-dir", dataDir, "--url", server.url], { stdout: "pipe", stderr: "pipe", env: { ...process.env, PARLEY_JWT_SECRET: "" } });
  const [out, err] = [await new Response(p.stdout).text(), await new Response(p.stderr).text()];
  return { code: await p.exited, out, err };
}

const screen = () => Bun.spawnSync(["tmux", "-L", tmuxSocket, "capture-pane", "-p", "-t", "pair"]).stdout.toString();

async function waitForScreen(pred: (s: string) => boolean, what: string, ms = 20_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const s = screen();
    if (pred(s)) return s;
    if (Date.now() > end) throw new Error(`screen never showed ${what}:\n${s}`);
    await Bun.sleep(50);
  }
}

test("parley pair shows the QR, redraws it when the network rotates it, and exits 0 showing the number after a scan", async () => {
  const created = await parley("sessions", "create", "front-desk");
  expect(created.code).toBe(0);

  // an operator's terminal, not a CI log: Ink draws nothing live when it sees CI=true
  const cmd = `env -u CI -u CONTINUOUS_INTEGRATION ${BUN} ${MAIN} pair front-desk --data-dir ${dataDir} --url ${server.url} --timeout 60; echo "EXIT=$?"; sleep 60`;
  const started = Bun.spawnSync(["tmux", "-L", tmuxSocket, "new-session", "-d", "-s", "pair", "-x", "120", "-y", "60", cmd]);
  expect(started.exitCode).toBe(0);

  const first = await waitForScreen((s) => s.includes("QR #1"), "the first QR");
  expect(first).toMatch(/[█▀▄]{20,}/); // the code, as block characters
  expect(first).toContain('Pairing session "front-desk"');
  const qrOf = (s: string) => s.split("\n").filter((l) => /[█▀▄]/.test(l)).join("\n");
  const second = await waitForScreen((s) => s.includes("QR #2"), "a rotated QR");
  expect(qrOf(second)).not.toBe(qrOf(first));

  const scan = await parley("sim", "scan", "front-desk", "--phone", "919812345678");
  expect(scan.code).toBe(0);
  const done = await waitForScreen((s) => s.includes("EXIT="), "the exit code");
  expect(done).toContain("Connected as +919812345678");
  expect(done).toContain("EXIT=0");

  const list = await parley("sessions", "list", "--json");
  expect(JSON.parse(list.out)).toMatchObject([{ name: "front-desk", status: "connected", phoneNumber: "919812345678" }]);
}, 60_000);

test("operator commands: sim inbound and logout, sessions connect and disconnect; failures exit non-zero with a message", async () => {
  const inbound = await parley("sim", "inbound", "front-desk", "--from", "919800000001", "--text", "hello");
  expect(inbound.code).toBe(0);
  expect(inbound.out).toContain("inbound");

  const already = await parley("pair", "front-desk");
  expect(already.code).toBe(0);
  expect(already.out).toContain("Connected as +919812345678");

  const again = await parley("sessions", "connect", "front-desk");
  expect(again.code).toBe(1);
  expect(again.err).toContain("CONFLICT");

  expect((await parley("sim", "logout", "front-desk")).code).toBe(0);
  const list = async () => JSON.parse((await parley("sessions", "list", "--json")).out)[0];
  for (let i = 0; i < 100 && (await list()).status !== "disconnected"; i++) await Bun.sleep(20);
  expect(await list()).toMatchObject({ status: "disconnected" });

  const connect = await parley("sessions", "connect", "front-desk");
  expect(connect.code).toBe(0);
  expect(connect.out).toContain("qr_pending");
  const disconnect = await parley("sessions", "disconnect", "front-desk");
  expect(disconnect.code).toBe(0);

  const missing = await parley("pair", "no-such-session");
  expect(missing.code).toBe(1);
  expect(missing.err).toContain('no session "no-such-session"');
  const down = Bun.spawn([BUN, MAIN, "sessions", "connect", "front-desk", "--data-dir", dataDir, "--url", "http://127.0.0.1:9"], { stderr: "pipe" });
  expect(await down.exited).toBe(1);
  expect(await new Response(down.stderr).text()).toContain("cannot reach the server");
}, 60_000);

test("parley pair gives up with a message and a non-zero code when nobody scans in time", async () => {
  const r = await parley("pair", "front-desk", "--timeout", "1");
  expect(r.code).toBe(1);
  expect(r.out).toContain("timed out");
  const state = JSON.parse((await parley("sessions", "list", "--json")).out)[0];
  expect(state.status).toBe("disconnected"); // the pairing it started was withdrawn
}, 60_000);

test("parley pair exits non-zero with a message when the server goes away mid-pairing (after trying to reconnect)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "parley-pair-lost-"));
  const own = await spawnServer({ dataDir: dir });
  try {
    seedWorkspace(dir, "Lost");
    const run = (...args: string[]) =>
      Bun.spawn([BUN, MAIN, ...args, "--data-dir", dir, "--url", own.url], { stdout: "pipe", stderr: "pipe", env: { ...process.env, PARLEY_JWT_SECRET: "" } });
    expect(await run("sessions", "create", "kiosk").exited).toBe(0);
    const pairing = run("pair", "kiosk", "--timeout", "120");
    const status = async () => {
      const p = run("sessions", "list", "--json");
      return (JSON.parse(await new Response(p.stdout).text()) as { status: string }[])[0]!.status;
    };
    for (let i = 0; i < 200 && (await status()) !== "qr_pending"; i++) await Bun.sleep(50);
    expect(await status()).toBe("qr_pending");

    // a graceful stop: the server closes the open event stream (1001) instead of waiting for it
    expect(await own.stop()).toBe(0);
    const [out, err] = [await new Response(pairing.stdout).text(), await new Response(pairing.stderr).text()];
    expect(await pairing.exited).toBe(1);
    // Ink wraps long lines
    // whichever notices first: the event stream closing, or a QR poll refused
    const said = (out + err).replace(/\s+/g, " ");
    expect(said.includes(`Pairing failed: lost the connection to the server at ${own.url}`) || said.includes(`Pairing failed: cannot reach the server: GET ${own.url}/`)).toBe(true);
  } finally {
    await own.stop();
  }
}, 60_000);

/** Starts `parley pair` in the background with piped output; `text()` is what it printed so far. */
function background(args: string[], env: Record<string, string> = {}) {
  // an operator's terminal, not a CI log: Ink draws nothing live when it sees CI=true
  const { CI: _ci, CONTINUOUS_INTEGRATION: _ci2, ...outside } = process.env;
  const p = Bun.spawn([BUN, MAIN, ...args], { stdout: "pipe", stderr: "pipe", env: { ...outside, PARLEY_JWT_SECRET: "", ...env } });
  let text = "";
  (async () => {
    for await (const chunk of p.stdout) text += new TextDecoder().decode(chunk);
  })();
  (async () => {
    for await (const chunk of p.stderr) text += new TextDecoder().decode(chunk);
  })();
  return { p, text: () => text };
}

test("parley pair --code links by phone number: prints the 8-character code, then the number once linked", async () => {
  expect((await parley("sessions", "create", "counter")).code).toBe(0);
  const run = background(["pair", "counter", "--code", "+91 98123-00000", "--data-dir", dataDir, "--url", server.url, "--timeout", "60"]);
  for (let i = 0; i < 1600 && !/Pairing code: [A-Z0-9]{4}-[A-Z0-9]{4}/.test(run.text()); i++) await Bun.sleep(25);
  expect(run.text()).toMatch(/Pairing code: [A-Z0-9]{4}-[A-Z0-9]{4}/);
  expect(run.text()).toContain("+919812300000");
  expect(run.text()).not.toMatch(/[█▀▄]{20,}/); // no QR drawn
  expect((await parley("sim", "scan", "counter", "--phone", "919812300000")).code).toBe(0);
  expect(await run.p.exited).toBe(0);
  expect(run.text()).toContain("Connected as +919812300000");
  const bad = await parley("pair", "counter", "--code", "12");
  expect(bad.code).toBe(1);
  expect(bad.err).toContain("--code 12");
}, 60_000);

test("a failed pairing says what its reason means; NO_COLOR leaves colour out", async () => {
  const dir = mkdtempSync(join(tmpdir(), "parley-pair-reason-"));
  const own = await spawnServer({ dataDir: dir, env: { PARLEY_SIM_QR_ROTATE_MS: "300", PARLEY_SIM_QR_MAX_ROTATIONS: "2" } });
  try {
    seedWorkspace(dir, "Reasons");
    const args = (name: string) => ["pair", name, "--data-dir", dir, "--url", own.url, "--timeout", "30"];
    for (const name of ["plain", "coloured"]) {
      const c = Bun.spawn([BUN, MAIN, "sessions", "create", name, "--data-dir", dir, "--url", own.url], { stdout: "ignore", stderr: "ignore", env: { ...process.env, PARLEY_JWT_SECRET: "" } });
      expect(await c.exited).toBe(0);
    }
    const plain = background(args("plain"), { FORCE_COLOR: "1", NO_COLOR: "1" });
    const coloured = background(args("coloured"), { FORCE_COLOR: "1" });
    expect(await plain.p.exited).toBe(1);
    expect(await coloured.p.exited).toBe(1);
    const flat = (s: string) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "").replace(/\s+/g, " ");
    expect(flat(plain.text())).toContain("Pairing failed: pairing_timeout: no phone linked before the network stopped offering codes");
    expect(plain.text()).not.toMatch(/\x1b\[3\dm/);
    expect(coloured.text()).toContain("\x1b[31m");
  } finally {
    await own.stop();
  }
}, 60_000);
