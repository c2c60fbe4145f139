// Child process: opens N WebSockets to a URL (argv: url, n) and counts the messages they
// receive (not counting Parley's `ready`). Serves GET /count on its own port: the total since
// the last /count. Prints {port, pid} once every socket is open.
const [url, nArg] = process.argv.slice(2);
const n = Number(nArg ?? 50);
let count = 0;
await Promise.all(
  Array.from({ length: n }, () => new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(url!);
    let ready = false;
    ws.onmessage = (m) => {
      if (!ready && String(m.data).includes('"ready"')) {
        ready = true;
        resolve();
        return;
      }
      count++;
    };
    ws.onopen = () => {
      if (!url!.includes("token=")) {
        ready = true;
        resolve();
      }
    };
    ws.onerror = () => reject(new Error("websocket failed"));
  })),
);
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch() {
    const c = count;
    count = 0;
    return Response.json(c);
  },
});
console.log(JSON.stringify({ port: server.port, pid: process.pid }));
process.on("SIGTERM", () => process.exit(0));
export {};
