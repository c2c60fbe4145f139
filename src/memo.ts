/**
 * The results of a pure function by a text key, for inputs that repeat (a handful of plans,
 * webhook hosts, sealed secrets). When `max` keys are held the memo starts over: these inputs
 * are few, and a flood of distinct ones costs a recompute, never unbounded memory.
 */
export class TextMemo<V> {
  private values = new Map<string, V>();

  constructor(private max: number) {}

  /** The value remembered for `key`, or `compute()` remembered; a throw remembers nothing. */
  get(key: string, compute: () => V): V {
    let v = this.values.get(key);
    if (v === undefined) {
      v = compute();
      if (this.values.size >= this.max) this.values.clear();
      this.values.set(key, v);
    }
    return v;
  }
}

/**
 * `build()` made on the first call and kept: for values a module would otherwise make at import
 * (a query fragment that reads a table's columns, which builds them; a large schema) that most
 * processes never use.
 */
export function firstUse<T>(build: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: build() }).value;
}
