// `npm run build`'s last step: `bun build`'s flags, as package.json lists them (the start bench
// and build/record-order.ts build with the same list), given to Bun.build so that the bundle can
// use the plugin of build/pg-core-out.ts, which the `bun build` command line cannot take. A flag
// this file does not know stops the build: a flag added to the script must be added here too.
// `bun build/compile.ts <flags> <entry> --outfile <file>`
import { pgCoreOut } from "./pg-core-out.ts";

const args = process.argv.slice(2);
let entry: string | undefined;
let outfile: string | undefined;
let bytecodeOrder: string | undefined;
let jitPolicy: number | undefined;
const seen = new Set<string>();
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  const [name, value] = arg.split(/=(.*)/s) as [string, string | undefined];
  if (name === "--outfile") outfile = value ?? args[++i];
  else if (name === "--bytecode-order") bytecodeOrder = value;
  else if (name === "--compile-jit-policy") jitPolicy = Number(value);
  else if (arg === "--format=esm" || arg === "--compile" || arg === "--splitting" || arg === "--bytecode" || arg === "--minify-syntax" || arg === "--sourcemap") seen.add(arg);
  else if (!arg.startsWith("-") && !entry) entry = arg;
  else throw new Error(`build/compile.ts does not know ${arg}`);
}
for (const required of ["--compile", "--format=esm"]) if (!seen.has(required)) throw new Error(`build/compile.ts builds with ${required} only`);
if (!entry || !outfile) throw new Error("usage: bun build/compile.ts <flags> <entry> --outfile <file>");

const result = await Bun.build({
  entrypoints: [entry],
  compile: { outfile, ...(bytecodeOrder ? { bytecodeOrder } : {}), ...(jitPolicy !== undefined ? { jitPolicy } : {}) },
  format: "esm",
  splitting: seen.has("--splitting"),
  bytecode: seen.has("--bytecode"),
  minify: { syntax: seen.has("--minify-syntax") },
  sourcemap: seen.has("--sourcemap") ? "linked" : "none",
  plugins: [pgCoreOut],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
