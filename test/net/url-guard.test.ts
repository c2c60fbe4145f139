import { describe, expect, test } from "bun:test";
import { assertSafeUrl, classifyAddress, UrlGuardError, type AddressClass, type Resolver } from "../../src/net/url-guard.ts";

/** A resolver for made-up names, so the tests need no DNS. */
const fakeDns = (table: Record<string, string[]>): Resolver => async (host) => {
  const list = table[host];
  if (!list) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
  return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

describe("classifyAddress", () => {
  const cases: [string, AddressClass][] = [
    // IPv4 loopback in every spelling inet_aton accepts
    ["127.0.0.1", "loopback"],
    ["127.1", "loopback"],
    ["0x7f.0.0.1", "loopback"],
    ["2130706433", "loopback"],
    ["0177.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    // private, link-local, CGNAT
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"], // cloud metadata
    ["100.64.0.1", "carrierGradeNat"],
    ["100.127.255.255", "carrierGradeNat"],
    // multicast, broadcast, unspecified
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    // documentation, benchmarking, future use, IETF protocol assignments
    ["192.0.2.10", "reserved"],
    ["198.51.100.1", "reserved"],
    ["203.0.113.7", "reserved"],
    ["198.18.0.1", "reserved"],
    ["198.19.255.255", "reserved"],
    ["240.0.0.1", "reserved"],
    ["192.0.0.8", "reserved"],
    // public IPv4 (edges next to private ranges)
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["172.15.255.255", "public"],
    ["172.32.0.0", "public"],
    ["100.63.255.255", "public"],
    ["100.128.0.0", "public"],
    ["11.0.0.1", "public"],
    // IPv6
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fe80::1%eth0", "linkLocal"],
    ["fc00::1", "private"],
    ["fd12:3456:789a::1", "private"],
    ["fec0::1", "reserved"], // site-local: deprecated
    ["ff02::1", "multicast"],
    ["2001:db8::1", "reserved"], // documentation
    ["2001:2::1", "reserved"], // benchmarking
    ["2001:0::1", "reserved"], // Teredo
    ["100::1", "reserved"], // discard
    ["2606:4700:4700::1111", "public"],
    ["2a00:1450:4001:80b::200e", "public"],
    // IPv4-mapped, translated, NAT64, compatible and 6to4 forms of internal addresses
    ["::ffff:127.0.0.1", "loopback"],
    ["[::ffff:127.0.0.1]", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.1.2.3", "private"],
    ["::ffff:169.254.169.254", "linkLocal"],
    ["::ffff:0:127.0.0.1", "loopback"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::a00:1", "private"],
    ["64:ff9b::8.8.8.8", "public"],
    ["64:ff9b:1::a00:1", "reserved"], // local-use NAT64
    ["::127.0.0.1", "loopback"],
    ["::8.8.8.8", "reserved"],
    ["2002:7f00:1::1", "loopback"],
    ["2002:c0a8:101::1", "private"],
    ["2002:808:808::1", "reserved"],
    ["::ffff:8.8.8.8", "public"],
    // not addresses
    ["example.com", "invalid"],
    ["", "invalid"],
    ["1.2.3.4.5", "invalid"],
  ];
  for (const [input, expected] of cases) {
    test(`${input || "(empty)"} is ${expected}`, () => expect(classifyAddress(input)).toBe(expected));
  }
});

const strict = { allowHttp: false, allowPrivate: false };

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "accepted";
  } catch (err) {
    if (err instanceof UrlGuardError) return err.reason;
    throw err;
  }
}

describe("assertSafeUrl", () => {
  test("URL forms that new URL() normalises to loopback are refused", async () => {
    for (const u of ["https://127.1/", "https://0x7f.0.0.1/", "https://2130706433/", "https://[::ffff:127.0.0.1]/", "https://[::1]/", "https://0177.0.0.1/", "https://[::ffff:7f00:1]:8443/x"]) {
      expect(`${u} ${await reason(assertSafeUrl(u, strict))}`).toBe(`${u} address_not_allowed`);
    }
  });

  test("plain http is refused unless allowed; other schemes always", async () => {
    const dns = fakeDns({ "hooks.example.com": ["93.184.216.34"] });
    expect(await reason(assertSafeUrl("http://hooks.example.com/x", { ...strict, resolver: dns }))).toBe("scheme_not_allowed");
    expect(await reason(assertSafeUrl("http://hooks.example.com/x", { ...strict, allowHttp: true, resolver: dns }))).toBe("accepted");
    expect(await reason(assertSafeUrl("ftp://hooks.example.com/x", { ...strict, allowHttp: true, resolver: dns }))).toBe("scheme_not_allowed");
    expect(await reason(assertSafeUrl("file:///etc/passwd", { allowHttp: true, allowPrivate: true }))).toBe("scheme_not_allowed");
  });

  test("a host with any internal address among its records is refused", async () => {
    const dns = fakeDns({ "mixed.example.com": ["93.184.216.34", "10.0.0.5"], "v6.example.com": ["2606:4700::1", "::1"] });
    const err = await assertSafeUrl("https://mixed.example.com/", { ...strict, resolver: dns }).catch((e) => e);
    expect(err).toBeInstanceOf(UrlGuardError);
    expect(err.reason).toBe("address_not_allowed");
    expect(err.address).toBe("10.0.0.5");
    expect(err.addressClass).toBe("private");
    expect(await reason(assertSafeUrl("https://v6.example.com/", { ...strict, resolver: dns }))).toBe("address_not_allowed");
  });

  test("localhost resolves through the system resolver and is refused", async () => {
    expect(await reason(assertSafeUrl("https://localhost:8443/hook", strict))).toBe("address_not_allowed");
  });

  test("unresolvable hosts, junk and credentials are refused with their own reasons", async () => {
    const dns = fakeDns({});
    expect(await reason(assertSafeUrl("https://nowhere.invalid/", { ...strict, resolver: dns }))).toBe("dns_failed");
    expect(await reason(assertSafeUrl("not a url", strict))).toBe("invalid_url");
    expect(await reason(assertSafeUrl("https://user:pw@8.8.8.8/", strict))).toBe("credentials_not_allowed");
  });

  test("allowPrivate admits loopback and private but never multicast, broadcast or unspecified", async () => {
    const lax = { allowHttp: true, allowPrivate: true };
    expect(await reason(assertSafeUrl("http://127.0.0.1:9/x", lax))).toBe("accepted");
    expect(await reason(assertSafeUrl("http://10.1.1.1/x", lax))).toBe("accepted");
    expect(await reason(assertSafeUrl("http://0.0.0.0/x", lax))).toBe("address_not_allowed");
    expect(await reason(assertSafeUrl("http://224.0.0.1/x", lax))).toBe("address_not_allowed");
    expect(await reason(assertSafeUrl("http://255.255.255.255/x", lax))).toBe("address_not_allowed");
  });

  test("returns the normalised URL (fragment dropped)", async () => {
    const dns = fakeDns({ "hooks.example.com": ["93.184.216.34"] });
    expect(await assertSafeUrl("HTTPS://Hooks.Example.com:443/a/../b?x=1#frag", { ...strict, resolver: dns })).toBe("https://hooks.example.com/b?x=1");
  });
});
