import { afterAll, describe, expect, test } from "bun:test";
import { FetchFailedError, guardedFetch, UrlGuardError } from "../../src/net/guarded-fetch.ts";
import type { Resolver } from "../../src/net/url-guard.ts";
import { startReceiver, testCert } from "./receiver.ts";

const tls = startReceiver({ tls: true });
const plain = startReceiver();
afterAll(() => {
  tls.stop();
  plain.stop();
});

/** receiver.test is not in any DNS: only the injected resolver knows it, so a success proves the pinned address was used. */
function countingResolver(answers: string[][]): Resolver & { calls: number } {
  const r = Object.assign(
    async () => {
      const list = answers[Math.min(r.calls++, answers.length - 1)]!;
      return list.map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) }));
    },
    { calls: 0 },
  );
  return r;
}

const local = { allowHttp: false, allowPrivate: true, timeoutMs: 5000 };

describe("guardedFetch", () => {
  test("HTTPS with an extra trusted CA: connects to the checked address, SNI and Host stay the name", async () => {
    // a second resolution would answer an address where nothing listens
    const resolver = countingResolver([["127.0.0.1"], ["127.0.0.2"]]);
    tls.handler = () => new Response("pong", { status: 201, headers: { "x-answer": "yes" } });
    const r = await guardedFetch(`https://receiver.test:${tls.port}/hook?q=1`, {
      ...local, ca: testCert().cert, resolver, method: "POST", headers: { "content-type": "application/json", "x-custom": "1" }, body: '{"a":1}',
    });
    expect(r.status).toBe(201);
    expect(new TextDecoder().decode(r.body)).toBe("pong");
    expect(r.headers.get("x-answer")).toBe("yes");
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(resolver.calls).toBe(1);
    const got = tls.received.at(-1)!;
    expect(got.headers.get("host")).toBe(`receiver.test:${tls.port}`);
    expect(got.path).toBe("/hook");
    expect(got.body).toBe('{"a":1}');
    expect(got.headers.get("x-custom")).toBe("1");
  });

  test("every fetch resolves once and re-checks: a name that now points inward is refused (rebinding)", async () => {
    const resolver = countingResolver([["127.0.0.1"]]);
    const before = tls.received.length;
    const err = await guardedFetch(`https://receiver.test:${tls.port}/`, { ...local, allowPrivate: false, ca: testCert().cert, resolver }).catch((e) => e);
    expect(err).toBeInstanceOf(UrlGuardError);
    expect(err.reason).toBe("address_not_allowed");
    expect(tls.received.length).toBe(before);
  });

  test("an untrusted self-signed certificate fails as a network error", async () => {
    const err = await guardedFetch(`${tls.url}/`, local).catch((e) => e);
    expect(err).toBeInstanceOf(FetchFailedError);
    expect(err.reason).toBe("network");
  });

  test("plain HTTP only with allowHttp; loopback only with allowPrivate", async () => {
    expect((await guardedFetch(`${plain.url}/x`, { ...local, allowHttp: false }).catch((e) => e)).reason).toBe("scheme_not_allowed");
    expect((await guardedFetch(`${plain.url}/x`, { ...local, allowHttp: true, allowPrivate: false }).catch((e) => e)).reason).toBe("address_not_allowed");
    plain.handler = () => new Response("hi");
    expect((await guardedFetch(`${plain.url}/x`, { ...local, allowHttp: true })).status).toBe(200);
  });

  test("redirects are returned, never followed", async () => {
    plain.handler = () => new Response(null, { status: 302, headers: { location: `${plain.url}/elsewhere` } });
    const before = plain.received.length;
    const r = await guardedFetch(`${plain.url}/start`, { ...local, allowHttp: true });
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe(`${plain.url}/elsewhere`);
    expect(plain.received.length).toBe(before + 1);
  });

  test("the time-out aborts a slow receiver", async () => {
    plain.handler = async () => {
      await Bun.sleep(3000);
      return new Response("late");
    };
    const err = await guardedFetch(`${plain.url}/slow`, { ...local, allowHttp: true, timeoutMs: 150 }).catch((e) => e);
    expect(err).toBeInstanceOf(FetchFailedError);
    expect(err.reason).toBe("timeout");
  });

  test("the time-out also aborts an answer whose body stalls after the head (read whole or streamed)", async () => {
    for (const headers of [{ "content-length": "100" }, {}] as Record<string, string>[]) {
      plain.handler = () =>
        new Response(
          new ReadableStream({
            async pull(c) {
              c.enqueue(new TextEncoder().encode("a"));
              await Bun.sleep(3000);
            },
          }),
          { headers },
        );
      const err = await guardedFetch(`${plain.url}/stall`, { ...local, allowHttp: true, timeoutMs: 150, truncateBytes: 4096 }).catch((e) => e);
      expect(err).toBeInstanceOf(FetchFailedError);
      expect(err.reason).toBe("timeout");
    }
  });

  test("the byte cap fails on a declared length and on a streamed body", async () => {
    plain.handler = () => new Response("x".repeat(10_000));
    const a = await guardedFetch(`${plain.url}/big`, { ...local, allowHttp: true, maxBytes: 1000 }).catch((e) => e);
    expect(a).toBeInstanceOf(FetchFailedError);
    expect(a.reason).toBe("too_large");
    plain.handler = () =>
      new Response(
        new ReadableStream({
          async pull(c) {
            c.enqueue(new TextEncoder().encode("y".repeat(600)));
            await Bun.sleep(1);
          },
        }),
      );
    const b = await guardedFetch(`${plain.url}/stream`, { ...local, allowHttp: true, maxBytes: 1000 }).catch((e) => e);
    expect(b).toBeInstanceOf(FetchFailedError);
    expect(b.reason).toBe("too_large");
  });

  test("truncateBytes keeps an excerpt without failing", async () => {
    plain.handler = () => new Response("z".repeat(10_000), { status: 500 });
    const r = await guardedFetch(`${plain.url}/excerpt`, { ...local, allowHttp: true, truncateBytes: 4096 });
    expect(r.status).toBe(500);
    expect(r.body.byteLength).toBe(4096);
    expect(r.truncated).toBe(true);
  });
});
