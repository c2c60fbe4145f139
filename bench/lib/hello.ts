// The bare compiled baseline: Bun.serve answering /health's JSON on the port given as argv.
const server = Bun.serve({ port: Number(process.argv[2] ?? 0), hostname: "127.0.0.1", fetch: () => Response.json({ success: true, data: { status: "ok" } }) });
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
export {};
