// Reading the repository's Markdown the way a reader's renderer does: links, headings, anchors.

/** Markdown without its fenced code blocks (``` or ~~~), line count kept so line numbers stay true. */
export function withoutFences(text: string): string {
  let fence: string | null = null;
  return text
    .split("\n")
    .map((line) => {
      const m = /^\s*(`{3,}|~{3,})/.exec(line);
      if (fence === null && m) {
        fence = m[1]!;
        return "";
      }
      if (fence !== null) {
        if (line.trim().startsWith(fence)) fence = null;
        return "";
      }
      return line;
    })
    .join("\n");
}

/** A line without its inline code spans (`...`, ``...``). */
export function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, "");
}

export interface MdLink {
  line: number;
  target: string;
}

/** Every inline link and image of a document, outside code, with its 1-based line. */
export function links(text: string): MdLink[] {
  const out: MdLink[] = [];
  withoutFences(text)
    .split("\n")
    .forEach((raw, i) => {
      const line = withoutCodeSpans(raw);
      for (const m of line.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ line: i + 1, target: m[1]! });
    });
  return out;
}

/** A link that leaves the repository (a URL with a scheme, or mail). */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target);
}

/** The anchor a heading gets on GitHub: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") // a link's text only
    .replace(/`/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a document's headings; a repeated heading gets -1, -2, ... as on GitHub. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of withoutFences(text).split("\n")) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}
