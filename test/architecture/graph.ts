import Module, { createRequire } from "node:module";
import { join } from "node:path";

/** Import graph of the project: file -> files it imports (type imports included), paths relative to the root. */
export type Graph = Record<string, string[]>;

const ROOT = join(import.meta.dir, "../..");
const require = createRequire(join(ROOT, "package.json"));

/**
 * madge parses TypeScript with the compiler's JavaScript API, which TypeScript 7 (the one
 * `npm run typecheck` runs) no longer has: its parser gets TypeScript 5 (the `typescript-5`
 * devDependency) instead. The swap is made for this process only, before madge loads.
 */
function parserOnTypeScript5(): void {
  const m = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const ts5 = require.resolve("typescript-5");
  const resolve = m._resolveFilename;
  if ((resolve as { ts5?: boolean }).ts5) return;
  const swapped = function (this: unknown, request: string, ...rest: unknown[]) {
    return request === "typescript" ? ts5 : resolve.call(this, request, ...rest);
  };
  (swapped as { ts5?: boolean }).ts5 = true;
  m._resolveFilename = swapped;
}

/** madge's graph of src/ and cli/ with its cycles. */
export async function importGraph(): Promise<{ graph: Graph; cycles: string[][] }> {
  parserOnTypeScript5();
  const madge = require("madge") as (paths: string[], config: object) => Promise<{ obj(): Graph; circular(): string[][] }>;
  // the parser warns once per `import("...")` type about a property madge reads: noise in the test's output
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    const result = await madge(["src", "cli"], {
      baseDir: ROOT,
      fileExtensions: ["ts", "tsx"],
      tsConfig: join(ROOT, "tsconfig.json"),
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    });
    return { graph: result.obj(), cycles: result.circular() };
  } finally {
    process.noDeprecation = quiet;
  }
}
