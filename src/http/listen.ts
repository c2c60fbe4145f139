import { isProduction } from "elysia/error";
import { websocket } from "elysia/ws";
import type { Server } from "bun";
import type { AnyElysia } from "elysia";

/** Bun.serve's options that the server sets (the rest are the app's: its fetch and WebSocket handlers). */
export interface ListenOptions {
  hostname: string;
  port: number;
  reusePort: boolean;
  maxRequestBodySize: number;
  websocket: { maxPayloadLength: number; backpressureLimit: number; closeOnBackpressureLimit: boolean };
  error: (err: Error) => Response;
}

/**
 * Listens as Elysia's own `app.listen` does (Bun.serve over the compiled app, its WebSocket
 * handlers, its onStart hooks), without its second pass: after listening, Elysia's listen compiles
 * the app again, maps its routes again, reloads the server with them and asks for a collection, in
 * a microtask, so before the first request is answered: 3-6 ms of every start (CPU, measured on
 * the binary). The app's routes are final when it listens (no plugin loads asynchronously) and
 * it uses Elysia's router (systemRouter false: no static routes for Bun), so that pass changed
 * nothing.
 */
export function listenApp(app: AnyElysia, options: ListenOptions): Server<unknown> {
  // a plugin still loading (none today) is what the second pass is for: Elysia's listen then
  if ((app as unknown as { promisedModules: { size: number } }).promisedModules.size) return app.listen(options).server!;
  app.compile();
  const server = Bun.serve({
    // Elysia's defaults
    development: !isProduction,
    idleTimeout: 30,
    ...options,
    websocket: { ...websocket, ...options.websocket },
    fetch: app.fetch,
  } as Parameters<typeof Bun.serve>[0]);
  app.server = server as AnyElysia["server"];
  for (const hook of app.event.start ?? []) hook.fn(app);
  return server;
}
