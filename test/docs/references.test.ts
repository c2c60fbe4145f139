// The repository stands on its own: no file points at documents it does not contain. Code and docs
// describe behaviour in words, or point at a page under docs/, never at numbered items of outside notes.
import { expect, test } from "bun:test";
import { relative } from "node:path";
import { hashProse, htmlProse, markdownProse, proseOf, scriptProse } from "./comments.ts";
import { repoFiles, ROOT, textOf } from "./repo.ts";

// Built from parts so that this file does not name them itself.
const OUTSIDE_DOCS = new RegExp(["shared", "/(?:spec|DECISIONS)"].join(""), "i");
/** A numbered reference such as "D" followed by 0-19, standing alone. */
const NUMBERED = /\bD1?[0-9]\b/;

/** The places in a file's prose (comments, test titles, Markdown text) that cite a numbered item. */
function numberedRefs(path: string, text: string): string[] {
  return (proseOf(path, text) ?? []).filter((p) => NUMBERED.test(p.text)).map((p) => `${relative(ROOT, path)}:${p.line}: ${p.text.trim().slice(0, 120)}`);
}

test("no file of the repository names the outside notes' paths", () => {
  const hits: string[] = [];
  let files = 0;
  for (const path of repoFiles()) {
    const text = textOf(path);
    if (text === null) continue;
    files++;
    text.split("\n").forEach((line, i) => {
      if (OUTSIDE_DOCS.test(line)) hits.push(`${relative(ROOT, path)}:${i + 1}: ${line.trim().slice(0, 120)}`);
    });
  }
  expect(hits).toEqual([]);
  expect(files).toBeGreaterThan(300);
});

test("no comment, test title or doc page cites a numbered item of them", () => {
  const hits = repoFiles().flatMap((path) => {
    const text = textOf(path);
    return text === null ? [] : numberedRefs(path, text);
  });
  expect(hits).toEqual([]);
});

// The check must find what it is for, and leave alone what only looks like it.
test("the prose readers find a numbered reference in comments and titles, not in code", () => {
  const d = (n: number) => `D${n}`;
  expect(numberedRefs("x.ts", `/** Sessions (${d(7)}). */\nconst a = 1; // see ${d(9)}\n`)).toHaveLength(2);
  expect(numberedRefs("x.ts", `/*\n * the rules of ${d(11)}\n */`)).toHaveLength(1);
  expect(numberedRefs("x.test.ts", `describe("API keys (${d(6)})", () => {});`)).toHaveLength(1);
  expect(numberedRefs("x.ts", `const ${d(5)} = "${d(3)}"; const url = "http://h/${d(2)}";`)).toHaveLength(0);
  expect(numberedRefs("x.md", `Roles (${d(5)}) decide.\n\`${d(1)}\` in code\n\`\`\`\n${d(2)}\n\`\`\``)).toHaveLength(1);
  expect(numberedRefs("x.md", "3D images, PD12 and 1080D1 are not references; neither is D20.")).toHaveLength(0);
  expect(hashProse(`run # as ${d(13)} says`)[0]!.text).toContain(d(13));
  expect(htmlProse(`<p>x</p><!-- ${d(14)} -->`)[0]!.text).toContain(d(14));
  expect(markdownProse("a\n```\nb\n```\nc").map((p) => p.text)).toEqual(["a", "", "", "", "c"]);
  expect(scriptProse(`const s = "a // b"; /* c */ // d`).map((p) => p.text.trim())).toEqual(["c", "d"]);
  expect(OUTSIDE_DOCS.test(["see shared", "spec/000.txt"].join("/"))).toBe(true);
});
