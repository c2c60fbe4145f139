import { EventEmitter } from "node:events";

/**
 * postgres.js's connection on Bun's own TCP socket (`Bun.connect`) instead of `node:net`.
 * Measured on Bun 1.4 (see docs/postgres-speed.md, "Send and drain: round trips"): node:net's
 * write path and its stream machinery cost postgres.js most of its CPU per statement, about
 * three quarters of a send's. postgres.js takes such a socket through its `socket` option and
 * uses a small part of net.Socket: the events `data`, `drain`, `error` and `close`, `write`,
 * `end`, `destroy`, `readyState`. Plain TCP or a Unix socket to one host only: a URL asking for
 * TLS, or naming several hosts, keeps node:net (see `openPostgresStore`).
 */
export class BunPgSocket extends EventEmitter {
  readyState: "opening" | "open" | "closed" = "opening";
  host = "";
  port = 0;
  private socket?: Bun.Socket<undefined>;
  /** what the kernel did not take yet, written on `drain` */
  private pending: Buffer[] = [];
  private callbacks: (() => void)[] = [];
  private closedOnce = false;

  /**
   * Resolves once connected, or once the connection failed: then as a closed socket that says
   * `error` and `close` a moment later, as net.Socket does (postgres.js counts on the `close`
   * to give the connection back to its pool).
   */
  static async open(o: { host: string; port: number; path?: string | false }): Promise<BunPgSocket> {
    const x = new BunPgSocket();
    x.host = o.host;
    x.port = o.port;
    const handlers = {
      data: (_s: Bun.Socket<undefined>, d: Buffer) => void x.emit("data", d),
      drain: () => x.flush(),
      close: () => x.gone(false),
      error: (_s: Bun.Socket<undefined>, err: Error) => x.failed(err),
      connectError: (_s: Bun.Socket<undefined>, err: Error) => x.failed(err),
      end: (s: Bun.Socket<undefined>) => void s.end(),
    };
    try {
      x.socket = await (o.path ? Bun.connect({ unix: o.path, socket: handlers }) : Bun.connect({ hostname: o.host, port: o.port, socket: handlers }));
      x.readyState = x.readyState === "closed" ? "closed" : "open";
    } catch (err) {
      x.failed(err as Error);
    }
    return x;
  }

  write(chunk: Uint8Array, cb?: () => void): boolean {
    if (this.readyState !== "open" || !this.socket) return false;
    if (cb) this.callbacks.push(cb);
    if (this.pending.length) {
      this.pending.push(Buffer.from(chunk));
      return false;
    }
    const n = this.socket.write(chunk);
    if (n >= chunk.byteLength) {
      this.done();
      return true;
    }
    this.pending.push(Buffer.from(chunk.subarray(Math.max(0, n))));
    return false;
  }

  end(chunk?: Uint8Array): this {
    if (chunk && this.readyState === "open") this.write(chunk);
    if (this.pending.length) this.ending = true;
    else this.socket?.end();
    return this;
  }

  destroy(): this {
    this.socket?.terminate();
    this.gone(false);
    return this;
  }

  setKeepAlive(on: boolean, ms: number): void {
    this.socket?.setKeepAlive(on, ms);
  }

  // copy streams pause and resume the socket; Bun's socket has no flow control to pass on
  pause(): this {
    return this;
  }
  resume(): this {
    return this;
  }

  private ending = false;

  private flush(): void {
    while (this.pending.length && this.socket) {
      const head = this.pending[0]!;
      const n = this.socket.write(head);
      if (n < head.byteLength) {
        this.pending[0] = head.subarray(Math.max(0, n));
        return;
      }
      this.pending.shift();
    }
    this.done();
    if (this.ending) this.socket?.end();
    this.emit("drain");
  }

  private done(): void {
    if (!this.callbacks.length) return;
    const cbs = this.callbacks.splice(0);
    queueMicrotask(() => cbs.forEach((cb) => cb()));
  }

  private failed(err: Error): void {
    if (this.closedOnce) return;
    this.closedOnce = true;
    this.readyState = "closed";
    this.pending = [];
    // after the promise jobs: postgres.js listens once the socket it awaited is handed over
    setImmediate(() => {
      this.emit("error", err);
      this.emit("close", true);
    });
  }

  private gone(hadError: boolean): void {
    if (this.closedOnce) return;
    this.closedOnce = true;
    this.readyState = "closed";
    this.pending = [];
    this.emit("close", hadError);
  }
}
