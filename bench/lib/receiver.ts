// Child process: a webhook receiver that measures latency. Each POSTed body's data.text is
// "t=<epoch ms>" (performance.timeOrigin + now of the sender); the receiver keeps receive
// minus that. GET /stats answers the latencies since the last /stats and resets.
let lat: number[] = [];
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    if (req.method === "GET") {
      const out = lat;
      lat = [];
      return Response.json(out);
    }
    const now = performance.timeOrigin + performance.now();
    const body = (await req.json()) as { data?: { text?: string } };
    const t = Number(body.data?.text?.slice(2));
    if (Number.isFinite(t)) lat.push(now - t);
    return new Response("ok");
  },
});
console.log(JSON.stringify({ port: server.port, pid: process.pid }));
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
export {};
