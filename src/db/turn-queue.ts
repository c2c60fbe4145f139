/**
 * Items queued during one turn of the event loop, handed to `flush` together once the turn ends
 * (setImmediate): the group commits of sends and of send outcomes are built on it.
 */
export class TurnQueue<T> {
  private items: T[] = [];
  private scheduled = false;

  constructor(private flush: (items: T[]) => void) {}

  push(item: T): void {
    this.items.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.items.splice(0);
      if (batch.length) this.flush(batch);
    });
  }
}
