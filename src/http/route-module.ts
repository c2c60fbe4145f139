import { Elysia, type AnyElysia, type ElysiaConfig } from "elysia";

/*
 * Each module builds its routes in an Elysia instance of its own (its prefix, its tags, the
 * guard's route options) that the app then `use`s; Elysia registers every route twice that way,
 * once in the module's instance (its hooks composed, its router filled) and again in the app's,
 * and the first is thrown away: ≈half of the ≈9 ms a start spent registering routes
 * (docs/benchmarks.md, "Cold start, fourth pass"). A module made with routeModule while the app
 * is being built (buildApp, inside addingTo) hands each route to the app at once, with exactly
 * what the module's own registration would have added to it (the path under the prefix, the
 * module's tags), and the app composes it once: the same hooks (the guard's options are the
 * app's macros too), the same route table, the same OpenAPI document. Only a module with nothing
 * else of its own qualifies (no hooks, no schema of its own, no macro the app lacks); it must be
 * `use`d by the app, directly or through instances without hooks or prefix.
 */

let target: AnyElysia | null = null;

/** Runs `build` (which makes the app's modules) with `app` as the instance routeModule's modules add their routes to. */
export function addingTo<T>(app: AnyElysia, build: () => T): T {
  const before = target;
  target = app;
  try {
    return build();
  } finally {
    target = before;
  }
}

type Add = (method: string, path: string, handle: unknown, localHook?: Record<string, unknown>, options?: { skipPrefix?: boolean; allowMeta?: boolean }) => unknown;
type Internals = {
  add: Add;
  event: Record<string, unknown>;
  standaloneValidator: Record<string, unknown>;
  validator: { global: unknown; scoped: unknown; local: unknown };
  extender: { macro: Record<string, unknown> };
  config: { prefix?: string; detail?: Record<string, unknown> };
};

/** An Elysia instance for a module's routes (as `new Elysia(config)`), registered once in the app being built. */
export function routeModule<const BasePath extends string = "">(config?: ElysiaConfig<BasePath>): Elysia<BasePath> {
  const module = new Elysia(config);
  const app = target as unknown as Internals | null;
  if (!app) return module; // built alone (a test's own instance): an ordinary instance
  const self = module as unknown as Internals;
  const own = self.add;
  let handed = 0;
  self.add = function (method, path, handle, localHook = {}, options) {
    const why = notAlone(self, app);
    if (why) {
      // the routes handed over would miss what came after them: refuse at start, loudly
      if (handed) throw new Error(`routeModule ${self.config.prefix ?? ""}: ${why} after its first route`);
      return own.call(this, method, path, handle, localHook, options);
    }
    handed++;
    // what Elysia's add does with the module's own settings before composing the route
    if (path !== "" && path.charCodeAt(0) !== 47) path = "/" + path;
    if (self.config.prefix && !options?.skipPrefix) path = self.config.prefix + path;
    if (localHook.tags) localHook.detail = { ...(localHook.detail as object | undefined), tags: localHook.tags };
    if (self.config.detail) localHook.detail = { ...self.config.detail, ...(localHook.detail as object | undefined) };
    return app.add(method, path, handle, localHook, { ...options, skipPrefix: true });
  };
  return module;
}

/** Why a module's routes cannot be composed by the app alone (null when they can). */
function notAlone(module: Internals, app: Internals): string | null {
  if (Object.keys(module.event).length) return "it has hooks of its own";
  if (module.standaloneValidator.local || module.standaloneValidator.scoped || module.standaloneValidator.global) return "it has schemas of its own";
  if (module.validator.local || module.validator.scoped || module.validator.global) return "it has schemas of its own";
  for (const name of Object.keys(module.extender.macro)) if (!Object.hasOwn(app.extender.macro, name)) return `the app lacks its macro ${name}`;
  const detail = module.config.detail;
  if (detail && Object.keys(detail).some((k) => k !== "tags")) return "it has details other than tags";
  return null;
}
