// The documentation holds together: every relative link of README.md and docs/*.md reaches a file
// of the repository (and, with #anchor, a heading of it), and every docs page the code points at exists.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { anchors, isExternal, links, slug } from "./markdown.ts";
import { repoFiles, ROOT } from "./repo.ts";

const pages = [join(ROOT, "README.md"), ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => join(ROOT, "docs", f))];

const anchorCache = new Map<string, Set<string>>();
const anchorsOf = (file: string) => {
  let a = anchorCache.get(file);
  if (!a) anchorCache.set(file, (a = anchors(readFileSync(file, "utf8"))));
  return a;
};

/** What is wrong with one link of `from`, or null when it leads somewhere. */
function broken(from: string, target: string): string | null {
  const hash = target.indexOf("#");
  const path = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  const file = path === "" ? from : join(dirname(from), decodeURIComponent(path));
  if (!file.startsWith(ROOT + "/") && file !== ROOT) return "leaves the repository";
  if (!existsSync(file)) return "no such file";
  if (anchor === null) return null;
  if (!file.endsWith(".md") || statSync(file).isDirectory()) return "an anchor into a file that has no headings";
  return anchorsOf(file).has(anchor) ? null : `no heading with the anchor #${anchor}`;
}

test("the docs are there: a README and pages under docs/", () => {
  expect(pages.length).toBeGreaterThan(10);
  for (const page of ["api", "configuration", "operations", "architecture", "benchmarks"]) expect(existsSync(join(ROOT, "docs", `${page}.md`))).toBe(true);
});

test("every relative link of README.md and docs/*.md reaches a file and, with an anchor, one of its headings", () => {
  const problems: string[] = [];
  let checked = 0;
  for (const page of pages) {
    for (const link of links(readFileSync(page, "utf8"))) {
      if (isExternal(link.target)) continue;
      checked++;
      const why = broken(page, link.target);
      if (why) problems.push(`${relative(ROOT, page)}:${link.line} ${link.target}: ${why}`);
    }
  }
  expect(problems).toEqual([]);
  expect(checked).toBeGreaterThan(50);
});

test("every docs page that code, tests and the dashboard point at exists", () => {
  const problems: string[] = [];
  let pointers = 0;
  for (const file of repoFiles(["src", "cli", "test", "web", "bench", "build", "types"])) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
      pointers++;
      const page = join(ROOT, "docs", m[1]!);
      if (!existsSync(page)) problems.push(`${relative(ROOT, file)}: docs/${m[1]} does not exist`);
      else if (m[2] && !anchorsOf(page).has(m[2])) problems.push(`${relative(ROOT, file)}: docs/${m[1]} has no heading #${m[2]}`);
    }
  }
  expect(problems).toEqual([]);
  expect(pointers).toBeGreaterThan(100);
});

test("anchors are made as GitHub makes them", () => {
  expect(slug("Documenting a route's responses (OpenAPI)")).toBe("documenting-a-routes-responses-openapi");
  expect(slug("The real network (baileys)")).toBe("the-real-network-baileys");
  expect(slug("Cold start: what `parley serve` loads lazily")).toBe("cold-start-what-parley-serve-loads-lazily");
  expect([...anchors("# A\n## B\n```\n## not a heading\n```\n## B\n")]).toEqual(["a", "b", "b-1"]);
  expect(links("[a](x.md) `[b](y.md)` ![c](img.png)\n```\n[d](z.md)\n```").map((l) => l.target)).toEqual(["x.md", "img.png"]);
  // written so that the pointer check above does not take them for pointers
  expect(broken(join(ROOT, "README.md"), `docs/${"api"}.md#no-such-heading`)).toBe("no heading with the anchor #no-such-heading");
  expect(broken(join(ROOT, "README.md"), `docs/${"nowhere"}.md`)).toBe("no such file");
});
