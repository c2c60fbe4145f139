// A worker thread that asks GET <url> every ~5 ms on its own event loop, so a stall of the server's
// loop shows as that request's latency and not as a late probe. Each message "mark" answers with
// the latencies (ms) since the previous mark: {max, p50, n}.
declare const self: Worker;
let url = "";
let lat: number[] = [];
let stop = false;

async function loop(): Promise<void> {
  while (!stop) {
    const t0 = performance.now();
    try {
      await (await fetch(url)).arrayBuffer();
      lat.push(performance.now() - t0);
    } catch {
      lat.push(performance.now() - t0);
    }
    const wait = 5 - (performance.now() - t0);
    if (wait > 0) await Bun.sleep(wait);
  }
}

self.onmessage = (e: MessageEvent<{ url?: string; mark?: boolean; stop?: boolean }>) => {
  if (e.data.url) {
    url = e.data.url;
    void loop();
    postMessage({ started: true });
  } else if (e.data.mark) {
    const s = lat.sort((a, b) => a - b);
    lat = [];
    postMessage({ max: s[s.length - 1] ?? NaN, p50: s[Math.floor(s.length / 2)] ?? NaN, n: s.length });
  } else if (e.data.stop) stop = true;
};
export {};
