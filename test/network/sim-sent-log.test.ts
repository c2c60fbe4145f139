// The sim network's sent log takes whole lines or none: a write the disk cuts short is taken
// back, and a line torn by a crash does not swallow the next one.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendLine } from "../../src/network/sim/append-line.ts";
import { BUN, ROOT } from "../helpers/process.ts";

test("a write the file system refuses halfway leaves the log as it was: whole lines only, the next write starts clean", () => {
  const dir = mkdtempSync(join(tmpdir(), "parley-sent-log-"));
  const log = join(dir, "sim-sent.jsonl");
  // a file size limit (ulimit -f, 1 KiB) stands in for a full disk: the write that crosses it fails (EFBIG) part-way
  const script = `
    const { appendLine } = await import(${JSON.stringify(join(ROOT, "src/network/sim/append-line.ts"))});
    let n = 0;
    try { for (;;) appendLine(${JSON.stringify(log)}, JSON.stringify({ n: n++, text: "x".repeat(90) })); }
    catch (err) { console.log(JSON.stringify({ code: err.code, tried: n })); }`;
  const p = Bun.spawnSync(["bash", "-c", `trap '' XFSZ; ulimit -f 1; exec "${BUN}" -e '${script.replace(/'/g, "'\\''")}'`], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const out = JSON.parse(p.stdout.toString().trim() || "{}") as { code?: string; tried?: number };
  expect(out.code).toBe("EFBIG");
  const text = readFileSync(log, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l) as { n: number });
  expect(lines.map((l) => l.n)).toEqual([...Array(out.tried! - 1).keys()]);
  // once the limit is gone, the next line is whole and on its own
  appendLine(log, JSON.stringify({ n: "after" }));
  expect(readFileSync(log, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l).n).at(-1)).toBe("after");
});

test("a line torn by a crash (no line break at the end) is not glued to the next one", () => {
  const dir = mkdtempSync(join(tmpdir(), "parley-sent-log-"));
  const log = join(dir, "sim-sent.jsonl");
  writeFileSync(log, '{"n":1}\n{"n":2,"te');
  appendLine(log, '{"n":3}');
  expect(readFileSync(log, "utf8")).toBe('{"n":1}\n{"n":2,"te\n{"n":3}\n');
});
