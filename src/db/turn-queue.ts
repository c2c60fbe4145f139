/**
 * Items queued during one turn of the event loop, handed to `flush` together once the turn ends
 * (setImmediate): the group commits of sends and of send outcomes are built on it. Flushes run
 * one at a time: items pushed while one runs wait for its end and go together in the next.
 */
export class TurnQueue<T> {
  private items: T[] = [];
  private scheduled = false;
  private flushing = false;

  constructor(private flush: (items: T[]) => Promise<void> | void) {}

  /**
   * The items pushed since the last batch, taken now by the flush under way (which handles them
   * itself, as a batch of its own): a flush may start its next batch before it ends.
   */
  take(): T[] {
    return this.items.splice(0);
  }

  push(item: T): void {
    this.items.push(item);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.items.splice(0);
      if (!batch.length) return;
      this.flushing = true;
      // a flush settles every item itself: a rejection here would only be a bug of the flush
      void (async () => this.flush(batch))()
        .catch(() => {})
        .finally(() => {
          this.flushing = false;
          if (this.items.length) this.schedule();
        });
    });
  }
}
