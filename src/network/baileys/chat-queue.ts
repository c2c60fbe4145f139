/**
 * Runs tasks one after another per key (the driver keys by session and chat), so an image
 * whose download takes a while is handed over before the text that followed it. Different
 * keys run in parallel; a key's chain is dropped when it runs empty.
 */
export class KeyedSerializer {
  private chains = new Map<string, Promise<void>>();

  /** Queues `task` behind the earlier tasks of `key`; a failing task does not stop the ones after it. */
  run(key: string, task: () => Promise<void>, onError: (err: unknown) => void = () => {}): Promise<void> {
    const next = (this.chains.get(key) ?? Promise.resolve())
      .then(task)
      .catch(onError)
      .finally(() => {
        if (this.chains.get(key) === next) this.chains.delete(key);
      });
    this.chains.set(key, next);
    return next;
  }

  /** Resolves when every queued task ran, or after `ms` at most (a stuck download must not hold a shutdown). */
  async drain(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([Promise.allSettled([...this.chains.values()]), limit]);
    clearTimeout(timer);
  }

  /** Keys with tasks queued or running. */
  get size(): number {
    return this.chains.size;
  }
}
