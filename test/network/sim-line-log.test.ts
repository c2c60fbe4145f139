// The sim network's logs (sim-sent.jsonl, sim-links.jsonl) are written asynchronously in
// batches of whole lines: a write the disk cuts short is taken back, a torn tail does not
// swallow the next line, concurrent appends keep their order, and close writes what is queued.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LineLog } from "../../src/network/sim/line-log.ts";
import { SimDriver } from "../../src/network/sim/driver.ts";
import { BUN, ROOT } from "../helpers/process.ts";

const dir = () => mkdtempSync(join(tmpdir(), "parley-line-log-"));

test("appends of one tick go out together, in order, each resolving once its line is in the file", async () => {
  const log = new LineLog(join(dir(), "a.jsonl"));
  const done = await Promise.all(Array.from({ length: 1000 }, (_, n) => log.append(JSON.stringify({ n })).then(() => readFileSync(log.path, "utf8").includes(`{"n":${n}}\n`))));
  expect(done.every(Boolean)).toBe(true);
  await log.append('{"n":"last"}');
  await log.close();
  const lines = readFileSync(log.path, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l).n);
  expect(lines).toEqual([...Array(1000).keys(), "last"]);
  await expect(log.append("{}")).rejects.toThrow("closed");
});

test("a line torn by a crash (no line break at the end) is not glued to the next one", async () => {
  const path = join(dir(), "sim-sent.jsonl");
  writeFileSync(path, '{"n":1}\n{"n":2,"te');
  const log = new LineLog(path);
  await log.append('{"n":3}');
  await log.close();
  expect(readFileSync(path, "utf8")).toBe('{"n":1}\n{"n":2,"te\n{"n":3}\n');
});

test("a write the file system refuses halfway leaves whole lines only; its appends fail; the next write starts clean", () => {
  const path = join(dir(), "sim-sent.jsonl");
  // a file size limit (ulimit -f, 1 KiB) stands in for a full disk: the batch that crosses it fails (EFBIG) part-way
  const script = `
    const { LineLog } = await import(${JSON.stringify(join(ROOT, "src/network/sim/line-log.ts"))});
    const log = new LineLog(${JSON.stringify(path)});
    let ok = 0, failed = 0, code;
    for (let round = 0; round < 10; round++) {
      await Promise.all(Array.from({ length: 3 }, (_, i) => log.append(JSON.stringify({ n: round * 3 + i, text: "x".repeat(90) })).then(() => ok++, (e) => { failed++; code = e.code; })));
    }
    console.log(JSON.stringify({ ok, failed, code }));`;
  const p = Bun.spawnSync(["bash", "-c", `trap '' XFSZ; ulimit -f 1; exec "${BUN}" -e '${script.replace(/'/g, "'\\''")}'`], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const out = JSON.parse(p.stdout.toString().trim() || "{}") as { ok: number; failed: number; code?: string };
  expect(out.code).toBe("EFBIG");
  expect(out.ok % 3).toBe(0); // whole batches went in or none of a batch
  const text = readFileSync(path, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  expect(text.trimEnd().split("\n").map((l) => JSON.parse(l).n)).toEqual([...Array(out.ok).keys()]);
});

test("the in-process sim keeps a bounded ring of sends; a resend is recognised from the log's tail after a restart", async () => {
  const dataDir = dir();
  const sim = new SimDriver({ dataDir, latencyMs: 0, sentRingSize: 8, resendWindow: 100 });
  await sim.connect("s1", { credentials: null });
  await Bun.sleep(5);
  sim.scan("s1", "919800000001");
  const results = await Promise.all(Array.from({ length: 40 }, (_, n) => sim.send("s1", { to: "919800000002", type: "text", text: `m${n}`, clientMessageId: `c${n}` })));
  expect(sim.sent.length).toBeLessThanOrEqual(10);
  expect(sim.sent.at(-1)!.message.text).toBe("m39");
  // concurrent resends of one message: one delivery
  const [x, y] = await Promise.all([0, 1].map(() => sim.send("s1", { to: "919800000002", type: "text", text: "once", clientMessageId: "twice" })));
  expect(x!.networkMessageId).toBe(y!.networkMessageId);
  // an old send is still found for a receipt, from the log on disk
  expect(await sim.hasSent("s1", results[0]!.networkMessageId)).toBe(true);
  expect(await sim.hasSent("s2", results[0]!.networkMessageId)).toBe(false);
  const creds = (sim as any).devices.keys().next().value as string;
  await sim.shutdown();

  const again = new SimDriver({ dataDir, latencyMs: 0, sentRingSize: 8, resendWindow: 100 });
  await again.connect("s1", { credentials: creds });
  await Bun.sleep(5);
  expect((await again.send("s1", { to: "919800000002", type: "text", text: "m3", clientMessageId: "c3" })).networkMessageId).toBe(results[3]!.networkMessageId);
  const lines = readFileSync(join(dataDir, "sim-sent.jsonl"), "utf8").trimEnd().split("\n");
  expect(lines.length).toBe(41);
  await again.shutdown();
});
