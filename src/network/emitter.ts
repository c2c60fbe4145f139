import type { DriverEvent, DriverListener } from "./driver.ts";

/** Listener set shared by drivers; a throwing listener never breaks the driver. */
export class DriverEmitter {
  private listeners = new Set<DriverListener>();

  on(listener: DriverListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: DriverEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        console.error("driver listener failed", err);
      }
    }
  }
}
