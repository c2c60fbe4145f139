/** Tags as typed ("a, b; c|d") in the contacts' form (docs/contacts-and-campaigns.md): trimmed, lower-cased, no empties. */
export const splitTags = (s: string) => s.split(/[,;|]/).map((t) => t.trim().toLowerCase()).filter(Boolean);

/**
 * "key=value" lines as an object (blank lines and lines without a key left out). Without a
 * prototype: a key such as `__proto__` stays a key (and the server says what is wrong with it)
 * instead of silently replacing the object's prototype.
 */
export function parsePairs(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const line of text.split("\n")) {
    const at = line.indexOf("=");
    const key = (at < 0 ? line : line.slice(0, at)).trim();
    if (key) out[key] = at < 0 ? "" : line.slice(at + 1).trim();
  }
  return out;
}
