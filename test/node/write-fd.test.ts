// Commands print with writeOut / writeErr (src/node/tty.ts): straight to the descriptor, never
// building process.stdout. All of a large output arrives through a pipe read slowly (partial
// writes, a full pipe), and a reader that has gone ends the writer quietly with status 0.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT } from "../helpers/process.ts";

const tty = join(ROOT, "src/node/tty.ts");
const writer = (n: number) => `const { writeOut, writeErr } = await import(${JSON.stringify(tty)}); writeErr("to stderr\\n"); writeOut("x".repeat(${n}) + "\\n"); writeOut("end\\n");`;

test("writeOut: 4 MiB through a pipe read a little at a time arrive whole and in order", async () => {
  const p = Bun.spawn([BUN, "-e", writer(4 * 1024 * 1024)], { stdout: "pipe", stderr: "pipe" });
  const chunks: Uint8Array[] = [];
  for await (const chunk of p.stdout) {
    chunks.push(chunk);
    await Bun.sleep(1); // a slow reader: the pipe fills, the writer waits
  }
  const out = Buffer.concat(chunks).toString();
  expect(await p.exited).toBe(0);
  expect(out.length).toBe(4 * 1024 * 1024 + 5);
  expect(out.endsWith("x\nend\n")).toBe(true);
  expect(await new Response(p.stderr).text()).toBe("to stderr\n");
});

test("writeOut: a reader that has gone ends the process with status 0 and no stack trace; so does parley --version", () => {
  for (const cmd of [`"${BUN}" -e '${writer(1024 * 1024)}'`, `"${BUN}" src/main.ts --version`, `"${BUN}" src/main.ts version`]) {
    const p = Bun.spawnSync(["bash", "-c", `set -o pipefail; ${cmd} 2>/dev/null | true; echo "status $?"; ${cmd} | true`], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(`${cmd}: ${p.stdout.toString().trim()} ${p.stderr.toString().replace("to stderr\n", "")}`).toBe(`${cmd}: status 0 `);
  }
});
