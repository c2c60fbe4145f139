// The server listens with listenApp (src/http/listen.ts), Elysia's listen without its second pass:
// the app's routes, its WebSocket handlers and its onStart hooks must work as with app.listen.
import { expect, test } from "bun:test";
import { Elysia } from "elysia";
import { listenApp } from "../../src/http/listen.ts";
import { websocketOptions } from "../../src/server.ts";

const options = {
  hostname: "127.0.0.1",
  port: 0,
  reusePort: false,
  maxRequestBodySize: 1024 * 1024,
  websocket: websocketOptions({ wsMaxBufferedBytes: 1024 * 1024 }),
  error: () => new Response("last resort", { status: 500 }),
};

test("listenApp: routes answer, onStart hooks see the server, WebSockets echo, stop closes it", async () => {
  let seen: unknown = null;
  const app = new Elysia()
    .onStart((a) => {
      seen = a.server;
    })
    .get("/health", () => ({ ok: true }))
    .ws("/ws", { message: (ws, m) => ws.send(`echo ${m}`) });
  const server = listenApp(app, options);
  try {
    expect(seen).toBe(server);
    expect(app.server).toBe(server);
    const res = await fetch(`http://127.0.0.1:${server.port}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect((await fetch(`http://127.0.0.1:${server.port}/nope`)).status).toBe(404);
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws`);
    const reply = await new Promise<string>((resolve, reject) => {
      ws.onopen = () => ws.send("hi");
      ws.onmessage = (e) => resolve(String(e.data));
      ws.onerror = () => reject(new Error("websocket failed"));
    });
    expect(reply).toBe("echo hi");
    ws.close();
  } finally {
    await app.stop(true);
  }
  expect(app.server).toBeNull();
});
