/**
 * Schemas built the first time anything looks at them. Route modules declare their request
 * schemas at module level, and building them (zod's classic API, ≈4,500 internal objects for
 * Parley's routes) was a large share of every start and of the idle heap, for routes most
 * servers call rarely or never (issue 13). Elysia creates a route's validators on the route's
 * first request, so a route's schemas are built then.
 *
 * The value stands for the schema everywhere: every operation on it is forwarded to the
 * schema, built once, and zod's methods come back bound to the schema itself, so
 * `lazy.optional()` or `lazy.extend(…)` make ordinary schemas. Only identity differs: a
 * stand-in put directly inside another schema (`z.object({ a: lazy })`) is not the schema
 * zod's JSON Schema conversion keys its bookkeeping by; `resolveLazy` swaps the stand-ins of
 * a schema tree for their schemas, and the two places that convert to JSON Schema call it.
 */
const made = new WeakMap<object, () => object>();

export function lazySchema<T extends object>(build: () => T): T {
  let schema: T | undefined;
  const get = (): T => (schema ??= resolveLazy(build()));
  const standIn = new Proxy({} as T, {
    get: (_, key) => Reflect.get(get(), key),
    has: (_, key) => Reflect.has(get(), key),
    set: (_, key, value) => Reflect.set(get(), key, value),
    ownKeys: () => Reflect.ownKeys(get()),
    // the stand-in has none of the schema's own properties: reported configurable, as a proxy must
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), key);
      return d && { ...d, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
  });
  made.set(standIn, get);
  return standIn;
}

/** The schema a stand-in stands for (built now if it was not), or `value` itself. */
function unwrap<T>(value: T): T {
  const get = typeof value === "object" && value !== null ? made.get(value) : undefined;
  return get ? (get() as T) : value;
}

type Node = Record<PropertyKey, unknown>;
const isPlain = (v: unknown): v is Node => {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};
const isSchema = (v: unknown): v is { _zod: { def: Node } } => typeof v === "object" && v !== null && typeof (v as { _zod?: { def?: unknown } })._zod?.def === "object";

/**
 * `schema` (unwrapped) with every stand-in inside its definition (object shapes, inner types,
 * elements, options…) replaced by the schema it stands for, in place: afterwards the tree holds
 * each schema once, under one identity.
 */
export function resolveLazy<T>(schema: T): T {
  const root = unwrap(schema);
  const visited = new Set<object>();
  const fix = (v: unknown): unknown => {
    const real = unwrap(v);
    const node = isSchema(real) ? real._zod.def : Array.isArray(real) || isPlain(real) ? (real as Node) : undefined;
    if (node && !visited.has(node)) {
      visited.add(node);
      fixEntries(node);
    }
    return real;
  };
  const fixEntries = (node: Node) => {
    for (const key of Object.keys(node)) {
      const v = node[key];
      const fixed = fix(v);
      if (fixed !== v) node[key] = fixed;
    }
  };
  fix(root);
  return root;
}
