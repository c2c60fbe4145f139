// Route modules are plugin functions of the app: each route is registered once, on the app, with
// its full path, and carries exactly the guard hooks its options ask for (`jwt`, `apiKey`,
// `jwtOrApiKey`: the guard's transform and its resolve, once each; none without them).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Hook = { fn: Function; subType?: string };
type Route = { method: string; path: string; hooks: { transform?: Hook[]; beforeHandle?: Hook[]; detail?: { security?: unknown[]; tags?: string[]; hide?: boolean } } };
const routes = () => t.app.routes as unknown as Route[];

test("every (method, path) is registered once", () => {
  const keys = routes().map((r) => `${r.method} ${r.path}`);
  expect(keys.length).toBeGreaterThan(100);
  expect(new Set(keys).size).toBe(keys.length);
});

test("a guarded route has the guard's transform and resolve once each and documents its security; the open routes are the known ones", () => {
  const open: string[] = [];
  for (const r of routes()) {
    const route = `${r.method} ${r.path}`;
    const transforms = (r.hooks.transform ?? []).filter((h) => h.fn.name === "transform").length;
    const resolves = (r.hooks.beforeHandle ?? []).filter((h) => h.subType === "resolve").length;
    const documented = (r.hooks.detail?.security?.length ?? 0) > 0;
    expect({ route, transforms, resolves }).toEqual({ route, transforms: transforms ? 1 : 0, resolves: transforms ? 1 : 0 });
    if (transforms) expect({ route, documented }).toEqual({ route, documented: true });
    else if (r.path.startsWith("/api/v1/") || r.path.startsWith("/api/external/")) open.push(route);
  }
  // under /api/v1 and /api/external every route takes a credential but the sim network's own controls
  expect(open.filter((r) => !r.includes("/sim/"))).toEqual([]);
});

test("every API route has its module's tag (the documentation's groups)", () => {
  for (const r of routes()) {
    if (!r.path.startsWith("/api/") || r.method === "WS") continue;
    expect({ route: `${r.method} ${r.path}`, tags: r.hooks.detail?.tags?.length ?? 0 }).toEqual({ route: `${r.method} ${r.path}`, tags: 1 });
  }
});

test("building the app registers each route once: no module is an instance of its own", async () => {
  const { Elysia } = await import("elysia");
  const proto = Elysia.prototype as unknown as { add: (...args: unknown[]) => unknown };
  const add = proto.add;
  let calls = 0;
  proto.add = function (this: unknown, ...args: unknown[]) {
    calls++;
    return add.apply(this, args);
  };
  let other: TestApp | undefined;
  try {
    other = await createTestApp();
  } finally {
    proto.add = add;
  }
  expect(calls).toBe(other.app.routes.length);
  await other.close();
});
