import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnServer } from "../helpers/process.ts";

/** Resident memory of a process in MB (Linux). */
function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);
  return kb / 1024;
}

const DEEP = "[".repeat(100_000) + "1" + "]".repeat(100_000); // ~200 KB
const PUBLIC_ROUTES = ["/api/auth/login", "/api/auth/register", "/api/auth/forgot-password", "/api/team/invitations/accept"];

test(
  "deeply nested JSON on public routes: 400 at once with flat memory, and /health stays responsive during a flood",
  async () => {
    const s = await spawnServer({ dataDir: mkdtempSync(join(tmpdir(), "parley-deep-")), env: { PARLEY_LOG_LEVEL: "warn" } });
    try {
      const post = (path: string) =>
        fetch(`${s.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: DEEP }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { code: string; errors?: Record<string, string> },
        }));
      // warm up (first requests compile routes), then measure
      for (const p of PUBLIC_ROUTES) await post(p);
      const before = rssMb(s.proc.pid);
      const n = 40;
      for (let i = 0; i < n; i++) {
        const r = await post(PUBLIC_ROUTES[i % PUBLIC_ROUTES.length]!);
        expect(r.status).toBe(400);
        expect(r.body.code).toBe("VALIDATION_ERROR");
        expect(r.body.errors?.body).toContain("deeper");
      }
      const growth = rssMb(s.proc.pid) - before;
      console.log(`deep JSON: RSS ${before.toFixed(1)} MB before ${n} requests, growth ${growth.toFixed(1)} MB (${(growth / n).toFixed(2)} MB a request)`);
      // unfixed, each such request took 1.5-2.3 GiB; a few MB a request is allocator noise at most
      expect(growth / n).toBeLessThan(4);

      // a flood of 64 concurrent deep bodies while /health is polled
      const latencies: number[] = [];
      let flooding = true;
      const flood = Promise.all(Array.from({ length: 64 }, (_, i) => post(PUBLIC_ROUTES[i % PUBLIC_ROUTES.length]!))).finally(() => (flooding = false));
      while (flooding || latencies.length < 5) {
        const t0 = performance.now();
        const h = await fetch(`${s.url}/health`);
        latencies.push(performance.now() - t0);
        expect(h.status).toBe(200);
      }
      const results = await flood;
      expect(results.every((r) => r.status === 400)).toBe(true);
      latencies.sort((a, b) => a - b);
      const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
      console.log(`/health during a flood of 64 deep bodies: ${latencies.length} probes, p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms, max ${pct(1)} ms; RSS now ${rssMb(s.proc.pid).toFixed(1)} MB`);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  },
  60_000,
);
