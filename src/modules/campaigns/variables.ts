// Message variables (docs/contacts-and-campaigns.md): {{name}}, {{phone}} and {{attributes.KEY}}, each with an optional
// default after a pipe ({{name|friend}}). Checked when a campaign is saved, filled per recipient.

const TOKEN = /\{\{([^{}]*)\}\}/g;
const ATTRIBUTE_KEY = /^[a-zA-Z][a-zA-Z0-9_]{0,39}$/;

interface Variable {
  /** "name", "phone" or "attributes.KEY" */
  path: string;
  fallback: string;
}

function parse(inner: string): Variable | null {
  const pipe = inner.indexOf("|");
  const path = (pipe < 0 ? inner : inner.slice(0, pipe)).trim();
  const fallback = pipe < 0 ? "" : inner.slice(pipe + 1).trim();
  if (path === "name" || path === "phone") return { path, fallback };
  if (path.startsWith("attributes.") && ATTRIBUTE_KEY.test(path.slice("attributes.".length))) return { path, fallback };
  return null;
}

/** The problems of a body's variables (empty when every one is known and every `{{` is closed). */
export function variableErrors(body: string): string[] {
  const problems: string[] = [];
  for (const m of body.matchAll(TOKEN)) {
    if (!parse(m[1]!)) problems.push(`unknown variable ${m[0]}: use {{name}}, {{phone}} or {{attributes.KEY}}, with an optional |default`);
  }
  // what is left after removing well-formed tokens must not open or close one
  const rest = body.replace(TOKEN, "");
  if (rest.includes("{{") || rest.includes("}}")) problems.push("a variable is not closed: write {{name}}");
  return problems;
}

/** The contact facts a body can use. */
export interface VariableValues {
  name: string | null;
  pushName: string | null;
  phone: string;
  attributes: Record<string, string>;
}

/** Fills the variables of a (checked) body: `name` is the contact's name, else its push name, else the default. */
export function renderBody(body: string, v: VariableValues): string {
  return body.replace(TOKEN, (whole, inner: string) => {
    const variable = parse(inner);
    if (!variable) return whole;
    let value: string | null | undefined;
    if (variable.path === "name") value = v.name?.trim() || v.pushName?.trim() || null;
    else if (variable.path === "phone") value = v.phone;
    else value = attributeOf(v.attributes, variable.path.slice("attributes.".length));
    return value ? value : variable.fallback;
  });
}

/**
 * An attribute by key, only the contact's own (a contact without a `constructor` attribute must
 * get the default, not the text of Object's constructor); a key written in another case finds it
 * too ({{attributes.city}} reads a `City` column of an import): people do not see case in a column
 * header, and a miss would quietly send the default. The exact key wins when both exist.
 */
export function attributeOf(attributes: Record<string, string>, key: string): string | undefined {
  const own = (k: string) => (Object.hasOwn(attributes, k) && typeof attributes[k] === "string" ? attributes[k] : undefined);
  if (Object.hasOwn(attributes, key)) return own(key);
  const lower = key.toLowerCase();
  for (const k of Object.keys(attributes)) if (k.toLowerCase() === lower) return own(k);
  return undefined;
}

