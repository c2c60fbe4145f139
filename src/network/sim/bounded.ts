/** A Map that forgets its oldest entries past `capacity` (insertion order). */
export class BoundedMap<K, V> {
  private map = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }

  get size(): number {
    return this.map.size;
  }
}

/**
 * The newest sent messages: `capacity` of them (up to a quarter more, as the oldest are dropped
 * in chunks) and at most `maxMediaBytes` of media among them (the oldest go first). An array, so tests filter and search it as before.
 */
export class SentRing<T extends { message: { media?: { data: Uint8Array } } }> extends Array<T> {
  private mediaBytes = 0;

  constructor(
    readonly capacity: number,
    readonly maxMediaBytes: number,
  ) {
    super();
  }

  // Array methods that make new arrays (filter, map) build them with this constructor
  static override get [Symbol.species]() {
    return Array;
  }

  add(entry: T): void {
    this.push(entry);
    this.mediaBytes += entry.message.media?.data.byteLength ?? 0;
    if (this.length > this.capacity + (this.capacity >> 2)) this.drop(this.length - this.capacity);
    while (this.mediaBytes > this.maxMediaBytes && this.length > 1) this.drop(1);
  }

  private drop(n: number): void {
    for (const old of this.splice(0, n)) this.mediaBytes -= old.message.media?.data.byteLength ?? 0;
  }
}
