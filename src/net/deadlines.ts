/**
 * Request deadlines that share timers: requests whose deadlines fall in the same short slot
 * share one timer and are aborted together when it fires. At thousands of requests a second
 * a timer (and a clearTimeout) per request is a measurable share of each one; here starting a
 * deadline is a Map insert and ending one a Map delete. A slot's timer fires at its END, so a
 * deadline is never cut short; it may run up to SLOT_MS longer, less than a busy event loop's
 * own timer lateness.
 */
const SLOT_MS = 8;

interface Slot {
  timer: ReturnType<typeof setTimeout>;
  /** each request with the error it aborts with */
  waiting: Map<AbortController, () => Error>;
}

const slots = new Map<number, Slot>();

/** A deadline in flight: `signal` aborts with `reason()` when it passes; `done()` ends it. */
export interface Deadline {
  signal: AbortSignal;
  /** ends the deadline (the request finished); safe to call more than once */
  done(): void;
  /** ends it and aborts the signal now (the request failed: its connection is not kept) */
  abort(): void;
}

/** Starts a deadline `ms` from now; on expiry the signal aborts with `reason()`. */
export function startDeadline(ms: number, reason: () => Error): Deadline {
  const controller = new AbortController();
  const key = Math.ceil((Date.now() + ms) / SLOT_MS);
  let slot = slots.get(key);
  if (!slot) {
    const waiting = new Map<AbortController, () => Error>();
    const timer = setTimeout(() => {
      slots.delete(key);
      for (const [c, why] of waiting) c.abort(why());
    }, key * SLOT_MS - Date.now());
    slots.set(key, (slot = { timer, waiting }));
  }
  slot.waiting.set(controller, reason);
  const s = slot;
  const done = () => {
    if (!s.waiting.delete(controller) || s.waiting.size) return;
    // the last request of the slot finished in time: its timer is not needed
    clearTimeout(s.timer);
    if (slots.get(key) === s) slots.delete(key);
  };
  return {
    signal: controller.signal,
    done,
    abort() {
      done();
      controller.abort();
    },
  };
}
