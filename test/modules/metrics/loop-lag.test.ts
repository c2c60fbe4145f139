import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { waitFor } from "../messages/helpers.ts";

const TOKEN = "scrape-token-0123456789";
const LAG = "parley_event_loop_lag_seconds";
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ config: { metricsToken: TOKEN } });
});
afterAll(async () => {
  await t.close();
});

async function scrape(): Promise<string> {
  const res = await t.app.handle(new Request("http://localhost/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }));
  expect(res.status).toBe(200);
  return res.text();
}

function value(text: string, sample: string): number {
  const line = text.split("\n").find((l) => l.startsWith(sample + " "));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

const bucket = (s: string, le: string) => value(s, `${LAG}_bucket{le="${le}"}`);

test("the event-loop lag histogram is in /metrics and counts its samples", async () => {
  const first = await scrape();
  expect(first).toContain(`# TYPE ${LAG} histogram`);
  const n = value(first, `${LAG}_count`);
  await waitFor(async () => value(await scrape(), `${LAG}_count`) > n + 3 || null, "lag samples");
});

test("a 120 ms block of the event loop shows as one sample above 100 ms, at most 250 ms", async () => {
  // wait for a sample to be taken, so the block starts right after one
  const before = await scrape();
  const count = value(before, `${LAG}_count`);
  await waitFor(async () => value(await scrape(), `${LAG}_count`) > count || null, "a sample");
  const at = await scrape();
  const end = performance.now() + 120;
  while (performance.now() < end) {
    // hold the loop
  }
  // the sampler's timer is overdue now: it runs before this later one, then the scrape reads its sample
  // (a scrape that began at once could read the histogram before the timer ran)
  await Bun.sleep(20);
  const after = await waitFor(async () => {
    const s = await scrape();
    return value(s, `${LAG}_count`) > value(at, `${LAG}_count`) + 1 ? s : null;
  }, "samples after the block");
  const above100 = (s: string) => value(s, `${LAG}_count`) - bucket(s, "0.1");
  expect(above100(after) - above100(at)).toBeGreaterThanOrEqual(1);
  // the block's sample sits in the (0.1, 0.25] bucket
  expect(bucket(after, "0.25") - bucket(at, "0.25") - (bucket(after, "0.1") - bucket(at, "0.1"))).toBeGreaterThanOrEqual(1);
});
