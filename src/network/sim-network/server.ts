import type { Server, ServerWebSocket } from "bun";
import { mkdirSync } from "node:fs";
import type { DriverEvent } from "../driver.ts";
import { localControl, SIM_OPS, type SimControl, type SimOp } from "../sim/control.ts";
import { SimDriver, type SimOptions } from "../sim/driver.ts";
import { LinksLog } from "./links-log.ts";
import { CLOSE_LOGOUT, CLOSE_REPLACED, decodeOutbound, wireError, type LinkCloseReason, type LinkOp, type NodeFrame, type SimFrame } from "./protocol.ts";

interface Link {
  sessionId: string;
  node: string;
  phone: string | null;
  /** set once the link is over (the first reason wins) */
  reason?: LinkCloseReason;
  opened: boolean;
}

type Socket = ServerWebSocket<Link>;

/** What a node may call on its link: one entry per operation. */
const LINK_OPS: Record<LinkOp, (sim: SimDriver, sessionId: string, args: any[]) => Promise<unknown>> = {
  send: (sim, id, [m]) => sim.send(id, decodeOutbound(m)),
  pairingCode: (sim, id, [phone]) => sim.requestPairingCode(id, String(phone)),
  checkNumbers: (sim, id, [phones]) => sim.checkNumbers(id, phones as string[]),
  listGroups: (sim, id) => sim.listGroups(id),
};

export interface SimNetworkOptions {
  port: number;
  host?: string;
  dataDir: string;
  sim?: Partial<Omit<SimOptions, "dataDir">>;
}

export interface SimNetwork {
  /** the network itself (tests look at what it accepted) */
  readonly sim: SimDriver;
  readonly port: number;
  readonly url: string;
  /** Ends every link (`closed`), writes the logs out and stops listening. */
  stop(): Promise<void>;
}

/**
 * The simulated network as a process of its own (`parley sim-network`): nodes link each session
 * through a WebSocket, one live link per session and per number; a newer link replaces the
 * older, which is closed as `replaced`. The network's state and its sent log live in `dataDir`.
 */
export function startSimNetwork(opts: SimNetworkOptions): SimNetwork {
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const sim = new SimDriver({ ...opts.sim, dataDir: opts.dataDir });
  const control = localControl(sim);
  const links = new Map<string, Socket>();
  const log = new LinksLog(opts.dataDir);

  const frame = (ws: Socket, f: SimFrame) => ws.send(JSON.stringify(f));

  /** Ends a link from the network's side: the node hears why (the event, then the close code). */
  const end = (ws: Socket, reason: LinkCloseReason, event?: DriverEvent) => {
    if (ws.data.reason) return;
    if (event) frame(ws, { t: "event", event });
    finish(ws, reason);
    ws.close(reason === "replaced" ? CLOSE_REPLACED : reason === "logout" ? CLOSE_LOGOUT : 1000, reason);
  };

  /** The link is over: recorded once, and its session leaves the network unless a newer link holds it. */
  const finish = (ws: Socket, reason: LinkCloseReason, logout = false) => {
    if (ws.data.reason) return;
    ws.data.reason = reason;
    const { sessionId, phone, node } = ws.data;
    if (links.get(sessionId) === ws) {
      links.delete(sessionId);
      void sim.disconnect(sessionId, { logout });
    }
    if (ws.data.opened) log.record({ sessionId, phone, node, event: "close", reason });
  };

  const replaced = (ws: Socket) =>
    end(ws, "replaced", { type: "disconnected", sessionId: ws.data.sessionId, reason: "replaced", willReconnect: false, detail: "another link took the number over" });

  /** One live link per number: the links of other sessions on `phone` are replaced. */
  const claimNumber = (ws: Socket, phone: string) => {
    ws.data.phone = phone;
    for (const other of links.values()) if (other !== ws && other.data.phone === phone) replaced(other);
  };

  sim.onEvent((e) => {
    const ws = links.get(e.sessionId);
    if (!ws) return;
    if (e.type === "connected") claimNumber(ws, e.phoneNumber);
    if (e.type === "disconnected" && !e.willReconnect) {
      const reason: LinkCloseReason = e.reason === "replaced" ? "replaced" : e.reason === "logged_out" || e.reason === "banned" ? "logout" : "closed";
      return end(ws, reason, e);
    }
    frame(ws, { t: "event", event: e });
  });

  const onFrame = async (ws: Socket, f: NodeFrame) => {
    const { sessionId } = ws.data;
    if (f.t === "open") {
      const old = links.get(sessionId);
      if (old && old !== ws) {
        links.delete(sessionId); // the session's network state stays for the new link to take
        replaced(old);
      }
      links.set(sessionId, ws);
      await sim.disconnect(sessionId, { logout: false }); // a fresh start for this link
      const phone = f.credentials ? sim.phoneOf(f.credentials) : undefined;
      if (phone) claimNumber(ws, phone);
      ws.data.opened = true;
      log.record({ sessionId, phone: ws.data.phone, node: ws.data.node, event: "open" });
      await sim.connect(sessionId, { credentials: f.credentials });
    } else if (f.t === "call") {
      const op = Object.hasOwn(LINK_OPS, f.op) ? LINK_OPS[f.op] : undefined;
      try {
        if (!op) throw new Error(`unknown operation ${f.op}`);
        if (links.get(sessionId) !== ws) throw new Error("this link was replaced");
        frame(ws, { t: "reply", id: f.id, result: await op(sim, sessionId, f.args ?? []) });
      } catch (err) {
        frame(ws, { t: "reply", id: f.id, error: wireError(err) });
      }
    } else if (f.t === "close") {
      finish(ws, f.logout ? "logout" : "closed", f.logout);
    }
  };

  const server: Server<Link> = Bun.serve<Link>({
    port: opts.port,
    hostname: opts.host ?? "127.0.0.1",
    fetch: async (req, srv) => {
      const url = new URL(req.url);
      if (url.pathname === "/link") {
        const sessionId = url.searchParams.get("session");
        if (!sessionId) return Response.json({ error: "session is required" }, { status: 400 });
        const node = url.searchParams.get("node") ?? "unknown";
        if (srv.upgrade(req, { data: { sessionId, node, phone: null, opened: false } })) return undefined;
        return Response.json({ error: "expected a WebSocket upgrade" }, { status: 426 });
      }
      if (url.pathname === "/control" && req.method === "POST") return callControl(control, req);
      if (url.pathname === "/health") return Response.json({ ok: true, links: links.size });
      return Response.json({ error: "not found" }, { status: 404 });
    },
    websocket: {
      message: (ws, text) => {
        let f: NodeFrame;
        try {
          f = JSON.parse(String(text)) as NodeFrame;
        } catch {
          return ws.close(1003, "frames are JSON");
        }
        onFrame(ws, f).catch((err) => console.error("sim network: a frame failed", err));
      },
      // a close the node did not announce: its process died or the connection broke
      close: (ws) => finish(ws, "gone"),
    },
  });

  return {
    sim,
    port: server.port!,
    url: `http://${opts.host ?? "127.0.0.1"}:${server.port}`,
    async stop() {
      for (const ws of [...links.values()]) end(ws, "closed");
      await sim.shutdown();
      await log.close();
      await server.stop(true);
    },
  };
}

/** POST /control {op, args}: one operation of the network's side (a sim route of any node). */
async function callControl(control: SimControl, req: Request): Promise<Response> {
  let body: { op?: string; args?: unknown[] };
  try {
    body = (await req.json()) as typeof body;
  } catch {
    return Response.json({ error: { message: "the body is JSON", transient: false, code: "bad_request" } }, { status: 400 });
  }
  const op = body.op as SimOp;
  if (!SIM_OPS.includes(op)) return Response.json({ error: { message: `unknown operation ${body.op}`, transient: false, code: "bad_request" } }, { status: 400 });
  try {
    const fn = control[op] as (...args: unknown[]) => Promise<unknown>;
    return Response.json({ result: (await fn(...(body.args ?? []))) ?? null });
  } catch (err) {
    return Response.json({ error: wireError(err) });
  }
}
