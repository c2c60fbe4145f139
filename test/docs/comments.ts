// The prose of a source file: its comments, and the titles of its tests. References to documents
// are looked for there, not in code or data, where letters and digits mean other things.
import { withoutCodeSpans, withoutFences } from "./markdown.ts";

export interface Prose {
  line: number;
  text: string;
}

const STRING = /"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`/g;
const TEST_TITLE = /\b(?:test|it|describe)(?:\.\w+)*(?:\([^()]*\))?\(\s*(["'`])((?:\\.|(?!\1).)*)\1/g;

/** Comments (`//`, `/* *\/`) of JavaScript, TypeScript and CSS, and the titles of tests. */
export function scriptProse(text: string): Prose[] {
  const out: Prose[] = [];
  let inBlock = false;
  text.split("\n").forEach((raw, i) => {
    const line = i + 1;
    let rest = raw;
    if (inBlock) {
      const end = rest.indexOf("*/");
      if (end < 0) {
        out.push({ line, text: rest });
        return;
      }
      out.push({ line, text: rest.slice(0, end) });
      rest = rest.slice(end + 2);
      inBlock = false;
    }
    for (const m of rest.matchAll(TEST_TITLE)) out.push({ line, text: m[2]! });
    // strings hold `//` (URLs) and quotes: blank them before looking for comment markers
    const code = rest.replace(STRING, (s) => " ".repeat(s.length));
    let at = 0;
    while (at < code.length) {
      const lineComment = code.indexOf("//", at);
      const block = code.indexOf("/*", at);
      if (lineComment < 0 && block < 0) break;
      if (lineComment >= 0 && (block < 0 || lineComment < block)) {
        out.push({ line, text: rest.slice(lineComment + 2) });
        break;
      }
      const end = code.indexOf("*/", block + 2);
      if (end < 0) {
        out.push({ line, text: rest.slice(block + 2) });
        inBlock = true;
        break;
      }
      out.push({ line, text: rest.slice(block + 2, end) });
      at = end + 2;
    }
  });
  return out;
}

/** `#` comments of shell scripts, Dockerfiles, unit files and ignore lists. */
export function hashProse(text: string): Prose[] {
  const out: Prose[] = [];
  text.split("\n").forEach((raw, i) => {
    const m = /(?:^|\s)#(?!!)(.*)$/.exec(raw);
    if (m) out.push({ line: i + 1, text: m[1]! });
  });
  return out;
}

/** `<!-- -->` comments of HTML. */
export function htmlProse(text: string): Prose[] {
  const out: Prose[] = [];
  for (const m of text.matchAll(/<!--([\s\S]*?)-->/g)) out.push({ line: text.slice(0, m.index).split("\n").length, text: m[1]! });
  return out;
}

/** Markdown outside code blocks and code spans: all of it is prose. */
export function markdownProse(text: string): Prose[] {
  return withoutFences(text)
    .split("\n")
    .map((raw, i) => ({ line: i + 1, text: withoutCodeSpans(raw) }));
}

/** The prose of a file by its name, or null for files that have none (data, images). */
export function proseOf(path: string, text: string): Prose[] | null {
  const name = path.split("/").pop()!;
  if (/\.(?:[cm]?[jt]sx?|css)$/.test(name)) return scriptProse(text);
  if (/\.md$/.test(name)) return markdownProse(text);
  if (/\.html?$/.test(name)) return htmlProse(text);
  if (/\.(?:sh|service|toml|ya?ml|env)$/.test(name) || /^(?:Dockerfile|run|\.gitignore|\.dockerignore)$/.test(name)) return hashProse(text);
  return null;
}
