/**
 * Items queued during one turn of the event loop, handed to `flush` together once the turn ends
 * (setImmediate): the group commits of sends and of send outcomes are built on it. Flushes run
 * one at a time by default: items pushed while one runs wait for its end and go together in the
 * next. With `concurrency` n, up to n flushes run at once: a turn's items start their flush
 * while up to n - 1 earlier ones are still running (the caller orders them itself, e.g. by a lock).
 */
export class TurnQueue<T> {
  private items: T[] = [];
  private scheduled = false;
  private flushing = 0;

  constructor(
    private flush: (items: T[]) => Promise<void> | void,
    private concurrency = 1,
  ) {}

  push(item: T): void {
    this.items.push(item);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.flushing >= this.concurrency) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.items.splice(0);
      if (!batch.length) return;
      this.flushing++;
      // a flush settles every item itself: a rejection here would only be a bug of the flush
      void (async () => this.flush(batch))()
        .catch(() => {})
        .finally(() => {
          this.flushing--;
          if (this.items.length) this.schedule();
        });
    });
  }
}
