/** What a connect (or a QR request) waits for. */
export type Outcome = { kind: "qr" } | { kind: "connected" } | { kind: "failed"; reason: string; detail?: string } | { kind: "timeout" };

/** Requests waiting for the next outcome of a session (first QR, link, failure), each with a time-out. */
export class OutcomeWaiters {
  private waiters = new Map<string, Set<(o: Outcome) => void>>();

  /** Waits up to `ms` for the session's next outcome (`timeout` after that or on cancel). */
  waitFor(id: string, ms: number): { promise: Promise<Outcome>; cancel(): void } {
    let set = this.waiters.get(id);
    if (!set) this.waiters.set(id, (set = new Set()));
    let resolve!: (o: Outcome) => void;
    const promise = new Promise<Outcome>((r) => (resolve = r));
    const timer = setTimeout(() => done({ kind: "timeout" }), ms);
    const done = (o: Outcome) => {
      clearTimeout(timer);
      set.delete(done);
      if (!set.size) this.waiters.delete(id);
      resolve(o);
    };
    set.add(done);
    return { promise, cancel: () => done({ kind: "timeout" }) };
  }

  /** Answers everyone waiting on the session. */
  settle(id: string, o: Outcome): void {
    for (const done of [...(this.waiters.get(id) ?? [])]) done(o);
  }

  /** Answers everyone waiting on any session (shutdown). */
  settleAll(o: Outcome): void {
    for (const id of [...this.waiters.keys()]) this.settle(id, o);
  }
}
