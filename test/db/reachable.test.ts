// A PostgreSQL URL whose host accepts connections but is no PostgreSQL server (a wrong port, a
// proxy without its server) made postgres.js reconnect without end while the first statement
// waited: `parley serve` and the operator commands hung with nothing said. They now stop after
// the URL's connect_timeout with one line naming the server (its password hidden).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstAnswerDeadlineMs } from "../../src/db/reachable.ts";
import { BUN, ROOT } from "../helpers/process.ts";

// a TCP server that takes each connection and closes it at once, and one that never answers
const closing = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (s) => void s.end(), data() {} } });
const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
afterAll(() => {
  closing.stop(true);
  silent.stop(true);
});

const url = (port: number) => `postgres://parley:s3cret-pw@127.0.0.1:${port}/parley?connect_timeout=1`;
async function run(args: string[], port: number) {
  const p = Bun.spawn([BUN, "src/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, PARLEY_DATABASE_URL: url(port), PARLEY_DATA_DIR: mkdtempSync(join(tmpdir(), "parley-unreach-")) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => p.kill(9), 25_000);
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  clearTimeout(killer);
  return { code, text: out + err };
}

test("the deadline is the URL's connect_timeout in seconds, else 30 s", () => {
  expect(firstAnswerDeadlineMs("postgres://a@h/db?connect_timeout=3")).toBe(3000);
  expect(firstAnswerDeadlineMs("postgres://a@h/db")).toBe(30_000);
  expect(firstAnswerDeadlineMs("postgres://a@h/db?connect_timeout=zero")).toBe(30_000);
});

// each run waits the deadline, then up to 5 s for the client to give up its connection
for (const [what, server, args] of [["closes every connection", closing, ["workspaces", "list"]], ["never answers", silent, ["migrate"]]] as const) {
  test(`a host that ${what}: \`parley ${args.join(" ")}\` exits 1 with one line naming it, password hidden`, async () => {
    const r = await run([...args], server.port);
    expect(r.code).toBe(1);
    expect(r.text).toContain(`PostgreSQL at postgres://parley:***@127.0.0.1:${server.port}/parley?connect_timeout=1 did not answer within 1 s`);
    expect(r.text).not.toContain("s3cret-pw");
  }, 60_000);

  test(`a host that ${what}: \`parley serve\` logs why and exits 1 instead of hanging`, async () => {
    const r = await run(["serve", "--network", "sim", "--port", "0"], server.port);
    expect(r.code).toBe(1);
    expect(r.text).toContain("did not answer within 1 s");
    expect(r.text).not.toContain("s3cret-pw");
  }, 60_000);
}
