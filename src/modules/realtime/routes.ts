import { decodeJwt } from "../../auth/jose.ts";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { AuthContext } from "../../auth/context.ts";
import { authenticateJwt } from "../../http/auth-guard.ts";
import type { RealtimeClient, RealtimeHub } from "./hub.ts";
import { instruments } from "../metrics/counters.ts";
import type { RoutedApp } from "../../http/routed-app.ts";

interface SocketState {
  client?: RealtimeClient;
  expiryTimer?: ReturnType<typeof setTimeout>;
}

interface Upgraded {
  realtimeAuth: Extract<AuthContext, { kind: "user" }>;
  realtimeExpiresAt: number;
  realtimeState: SocketState;
}

/** `Sec-WebSocket-Protocol: bearer, <token>` (browsers cannot set Authorization on a WebSocket). */
function tokenFromProtocol(header: string | undefined): string | undefined {
  const parts = (header ?? "").split(",").map((p) => p.trim());
  return parts[0]?.toLowerCase() === "bearer" && parts[1] ? parts[1] : undefined;
}

/**
 * GET /api/ws with an access token; events of the token's workspace only, keepalive pings.
 * `hub` is the runtime's one hub (built by createServices).
 */
export function realtimeRoutes(deps: AppDeps, hub: RealtimeHub) {
  return (app: RoutedApp) => app.ws("/api/ws", {
    async upgrade(ctx) {
      const protocol = ctx.request.headers.get("sec-websocket-protocol") ?? undefined;
      const token = new URL(ctx.request.url).searchParams.get("token") ?? tokenFromProtocol(protocol);
      if (!token) throw errors.unauthorized("Missing access token (?token= or Sec-WebSocket-Protocol: bearer, <token>)");
      const auth = await authenticateJwt(deps, `Bearer ${token}`);
      if (auth.kind !== "user") throw errors.unauthorized("Invalid or expired token");
      // each socket holds a buffer and a share of every event's fan-out: one user cannot open without bound
      if (hub.socketsOf(auth.userId) >= deps.config.wsMaxSocketsPerUser) {
        instruments().realtimeClosed.inc({ reason: "per_user_cap" });
        throw errors.rateLimited(5, `At most ${deps.config.wsMaxSocketsPerUser} real-time connections per user; close another tab or window`);
      }
      const exp = decodeJwt(token).exp!;
      Object.assign(ctx, { realtimeAuth: auth, realtimeExpiresAt: exp * 1000, realtimeState: {} } satisfies Upgraded);
      // the server that upgrades the socket publishes to its topics (native fan-out)
      const server = ctx.server;
      if (server) hub.usePublisher((topic, text) => void server.publish(topic, text));
      // the client offered subprotocols; the handshake must pick one
      if (tokenFromProtocol(protocol)) ctx.set.headers["sec-websocket-protocol"] = "bearer";
    },
    open(ws) {
      const { realtimeAuth: auth, realtimeExpiresAt, realtimeState: state } = ws.data as unknown as Upgraded;
      const client: RealtimeClient = {
        workspaceId: auth.workspaceId,
        userId: auth.userId,
        role: auth.role,
        send: (text) => void ws.raw.send(text),
        buffered: () => (ws.raw as unknown as { getBufferedAmount(): number }).getBufferedAmount(),
        ping: () => void ws.raw.ping(),
        close: (code, reason) => ws.close(code, reason),
        terminate: () => (ws.raw as unknown as { terminate(): void }).terminate(),
        subscribe: (topic) => void ws.raw.subscribe(topic),
        unsubscribe: (topic) => {
          try {
            ws.raw.unsubscribe(topic);
          } catch {
            // closed already: Bun dropped its subscriptions
          }
        },
      };
      state.client = client;
      hub.add(client);
      // the socket lives no longer than the token that opened it
      const ttl = Math.max(0, realtimeExpiresAt - deps.clock.now().getTime());
      state.expiryTimer = setTimeout(() => ws.close(4001, "token expired"), Math.min(ttl, 2 ** 31 - 1));
      ws.send(JSON.stringify({ event: "ready", timestamp: deps.clock.now().toISOString(), data: { workspaceId: auth.workspaceId } }));
    },
    message(ws, message) {
      // application-level ping for clients that cannot see protocol pings
      if ((message as { event?: unknown } | null)?.event === "ping") {
        ws.send(JSON.stringify({ event: "pong", timestamp: deps.clock.now().toISOString(), data: {} }));
      }
    },
    close(ws) {
      const { realtimeState: state } = ws.data as unknown as Upgraded;
      if (state.expiryTimer) clearTimeout(state.expiryTimer);
      if (state.client) hub.remove(state.client);
    },
  });
}
