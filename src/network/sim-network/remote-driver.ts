import { DriverEmitter } from "../emitter.ts";
import { NetworkError, type ConnectOptions, type DriverEvent, type DriverListener, type GroupInfo, type NetworkDriver, type NumberCheck, type OutboundMessage } from "../driver.ts";
import { SIM_OPS, type SimControl, type SimControlled } from "../sim/control.ts";
import { CLOSE_REPLACED, decodeEvent, encodeOutbound, fromWireError, type LinkOp, type NodeFrame, type SimFrame, type WireError } from "./protocol.ts";

interface RemoteLink {
  ws: WebSocket;
  credentials: string | null;
  connected: boolean;
  /** the node ended it, or the network did with a final event: no reconnect */
  over: boolean;
  calls: Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>;
  closed: Promise<void>;
}

export interface RemoteSimOptions {
  /** the sim network process, e.g. http://127.0.0.1:4500 */
  url: string;
  /** this node's name in the network's link log */
  node: string;
  /** wait before relinking after the sim network went away */
  relinkMs?: number;
  /** how long opening a link may take */
  connectTimeoutMs?: number;
}

/**
 * The sim network reached through `parley sim-network`: each connected session is one
 * WebSocket link, so the link dies with this process. Events arrive on the link; the network's
 * side (the sim routes) goes to the process over HTTP, so any node can act on any session.
 */
export class RemoteSimDriver implements NetworkDriver, SimControlled {
  readonly name = "sim" as const;
  readonly simControl: SimControl;
  private emitter = new DriverEmitter();
  private links = new Map<string, RemoteLink>();
  /** sessions waiting to relink after the sim network went away */
  private relinks = new Map<string, ReturnType<typeof setTimeout>>();
  private nextCall = 1;

  constructor(private opts: RemoteSimOptions) {
    this.simControl = Object.fromEntries(SIM_OPS.map((op) => [op, (...args: unknown[]) => this.control(op, args)])) as unknown as SimControl;
  }

  onEvent(listener: DriverListener): () => void {
    return this.emitter.on(listener);
  }

  async connect(sessionId: string, opts: ConnectOptions): Promise<void> {
    const live = this.links.get(sessionId);
    if (live && !live.over) return;
    this.stopRelink(sessionId);
    await this.link(sessionId, opts.credentials);
  }

  async requestPairingCode(sessionId: string, phoneNumber: string): Promise<string> {
    return (await this.call(sessionId, "pairingCode", [phoneNumber])) as string;
  }

  async send(sessionId: string, message: OutboundMessage): Promise<{ networkMessageId: string }> {
    return (await this.call(sessionId, "send", [encodeOutbound(message)])) as { networkMessageId: string };
  }

  async checkNumbers(sessionId: string, phones: string[]): Promise<NumberCheck[]> {
    return (await this.call(sessionId, "checkNumbers", [phones])) as NumberCheck[];
  }

  async listGroups(sessionId: string): Promise<GroupInfo[]> {
    return (await this.call(sessionId, "listGroups", [])) as GroupInfo[];
  }

  async disconnect(sessionId: string, opts: { logout: boolean }): Promise<void> {
    this.stopRelink(sessionId);
    const link = this.links.get(sessionId);
    if (!link) return;
    this.links.delete(sessionId);
    await this.close(link, opts.logout);
  }

  async shutdown(): Promise<void> {
    for (const id of [...this.relinks.keys()]) this.stopRelink(id);
    const all = [...this.links.values()];
    this.links.clear();
    await Promise.all(all.map((l) => this.close(l, false)));
  }

  private async close(link: RemoteLink, logout: boolean): Promise<void> {
    link.over = true;
    if (link.ws.readyState === WebSocket.OPEN) {
      this.frame(link, { t: "close", logout });
      link.ws.close(1000, logout ? "logout" : "closed");
    } else if (link.ws.readyState === WebSocket.CONNECTING) link.ws.close();
    await Promise.race([link.closed, Bun.sleep(5_000)]);
  }

  /** Opens the session's link; resolves once the socket is open (the network then answers with events). */
  private link(sessionId: string, credentials: string | null): Promise<void> {
    const base = this.opts.url.replace(/^http/, "ws").replace(/\/$/, "");
    const ws = new WebSocket(`${base}/link?session=${encodeURIComponent(sessionId)}&node=${encodeURIComponent(this.opts.node)}`);
    let closed!: () => void;
    const link: RemoteLink = { ws, credentials, connected: false, over: false, calls: new Map(), closed: new Promise<void>((r) => (closed = r)) };
    this.links.set(sessionId, link);
    ws.onmessage = (m) => this.onFrame(sessionId, link, JSON.parse(String(m.data)) as SimFrame);
    let opened = false;
    // an address that never answers: given up like one that refuses
    const timeout = setTimeout(() => opened || ws.close(), this.opts.connectTimeoutMs ?? 10_000);
    return new Promise<void>((resolve, reject) => {
      ws.onopen = () => {
        opened = true;
        clearTimeout(timeout);
        this.frame(link, { t: "open", credentials });
        resolve();
      };
      ws.onclose = (c) => {
        clearTimeout(timeout);
        closed();
        for (const call of link.calls.values()) call.reject(new NetworkError("the sim network link closed", true, "not_connected"));
        link.calls.clear();
        if (opened) return this.onClosed(sessionId, link, c.code);
        link.over = true;
        if (this.links.get(sessionId) === link) this.links.delete(sessionId);
        reject(new NetworkError(`the sim network at ${this.opts.url} cannot be reached`, true, "sim_unreachable"));
      };
    });
  }

  private onFrame(sessionId: string, link: RemoteLink, f: SimFrame): void {
    if (f.t === "reply") {
      const call = link.calls.get(f.id);
      link.calls.delete(f.id);
      if (f.error) call?.reject(fromWireError(f.error as WireError));
      else call?.resolve(f.result);
      return;
    }
    const e = decodeEvent(f.event);
    if (e.type === "credentials") link.credentials = e.credentials;
    if (e.type === "connected") link.connected = true;
    if (e.type === "disconnected") {
      link.connected = false;
      if (!e.willReconnect) {
        link.over = true;
        if (this.links.get(sessionId) === link) this.links.delete(sessionId);
      }
    }
    this.emit(e);
  }

  /** A close the node did not ask for: replaced (told by its event, or by the code alone), or the sim network went away (relink). */
  private onClosed(sessionId: string, link: RemoteLink, code: number): void {
    if (link.over) return;
    link.over = true;
    if (this.links.get(sessionId) === link) this.links.delete(sessionId);
    if (code === CLOSE_REPLACED) {
      this.emit({ type: "disconnected", sessionId, reason: "replaced", willReconnect: false, detail: "another link took the number over" });
      return;
    }
    const retryInMs = this.opts.relinkMs ?? 1_000;
    this.emit({ type: "disconnected", sessionId, reason: "connection_lost", willReconnect: true, detail: "the sim network link closed", retryInMs });
    this.relink(sessionId, link.credentials, retryInMs);
  }

  /** Links the session again after `ms`, and again until it works or the session is disconnected. */
  private relink(sessionId: string, credentials: string | null, ms: number): void {
    this.stopRelink(sessionId);
    const timer = setTimeout(() => {
      this.relinks.delete(sessionId);
      if (this.links.has(sessionId)) return; // linked again meanwhile
      this.link(sessionId, credentials).catch(() => this.relink(sessionId, credentials, Math.min(ms * 2, 15_000)));
    }, ms);
    this.relinks.set(sessionId, timer);
  }

  private stopRelink(sessionId: string): void {
    clearTimeout(this.relinks.get(sessionId));
    this.relinks.delete(sessionId);
  }

  private call(sessionId: string, op: LinkOp, args: unknown[]): Promise<unknown> {
    const link = this.links.get(sessionId);
    if (!link || link.over || link.ws.readyState !== WebSocket.OPEN) return Promise.reject(new NetworkError("session is not connected", true, "not_connected"));
    const id = this.nextCall++;
    return new Promise((resolve, reject) => {
      link.calls.set(id, { resolve, reject });
      this.frame(link, { t: "call", id, op, args });
    });
  }

  /** One operation of the network's side, on the sim network process. */
  private async control(op: string, args: unknown[]): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.opts.url.replace(/\/$/, "")}/control`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ op, args }),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      throw new NetworkError(`the sim network at ${this.opts.url} cannot be reached: ${(err as Error).message}`, true, "sim_unreachable");
    }
    const body = (await res.json()) as { result?: unknown; error?: WireError };
    if (body.error) throw fromWireError(body.error);
    return body.result ?? undefined;
  }

  private frame(link: RemoteLink, f: NodeFrame): void {
    link.ws.send(JSON.stringify(f));
  }

  private emit(e: DriverEvent): void {
    this.emitter.emit(e);
  }
}
