import type IpAddr from "ipaddr.js";
import { envName, flagName, type ConfigKey } from "../config.ts";
import { TextMemo } from "../memo.ts";
import { nodeDns } from "../node/lazy.ts";

/** What an IP address is, from the point of view of "may the server connect there". */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "linkLocal"
  | "carrierGradeNat"
  | "multicast"
  | "reserved"
  | "unspecified"
  | "broadcast"
  | "invalid";

type IpAddrLib = typeof IpAddr;
let ipaddrLib: IpAddrLib | undefined;
/** ipaddr.js, loaded with the first address classified: its module builds its tables when it is evaluated (≈0.3 ms of every start otherwise). */
const ipaddr = (): IpAddrLib => (ipaddrLib ??= require("ipaddr.js") as IpAddrLib);

/** Classes never valid as a receiver, even when the operator allows private targets. */
const NEVER_ALLOWED: ReadonlySet<AddressClass> = new Set(["multicast", "unspecified", "broadcast", "invalid"]);

const V4_RANGES: Record<string, AddressClass> = {
  unicast: "public",
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "linkLocal",
  loopback: "loopback",
  carrierGradeNat: "carrierGradeNat",
  private: "private",
  // documentation, benchmarking (198.18/15), 240/4, 192.0.0/24 and anycast infrastructure
  reserved: "reserved",
  as112: "reserved",
  amt: "reserved",
};

function classifyV4(a: IpAddr.IPv4): AddressClass {
  return V4_RANGES[a.range()] ?? "reserved";
}

function v4FromParts(hi: number, lo: number): IpAddr.IPv4 {
  return new (ipaddr().IPv4)([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/** IPv6 forms that carry an IPv4 address are judged by the address they carry. */
function classifyV6(a: IpAddr.IPv6): AddressClass {
  const p = a.parts as [number, number, number, number, number, number, number, number];
  const zeros = (n: number) => p.slice(0, n).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (RFC 6145 translated)
  if (zeros(5) && p[5] === 0xffff) return classifyV4(v4FromParts(p[6], p[7]));
  if (zeros(4) && p[4] === 0xffff && p[5] === 0) return classifyV4(v4FromParts(p[6], p[7]));
  // NAT64 well-known prefix 64:ff9b::/96 reaches the embedded IPv4 address
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return classifyV4(v4FromParts(p[6], p[7]));
  // deprecated IPv4-compatible ::a.b.c.d (:: and ::1 fall through to their own ranges)
  if (zeros(6) && (p[6] !== 0 || p[7] > 1)) return worst(classifyV4(v4FromParts(p[6], p[7])));
  // 6to4 2002:AABB:CCDD::/16 embeds the IPv4 address; a deprecated relay mechanism
  if (p[0] === 0x2002) return worst(classifyV4(v4FromParts(p[1], p[2])));
  const range = a.range();
  switch (range) {
    case "unspecified":
    case "loopback":
    case "multicast":
    case "linkLocal":
      return range;
    case "uniqueLocal":
      return "private";
    case "unicast":
      // only global unicast 2000::/3 is public; anything else unassigned is reserved
      return (p[0] & 0xe000) === 0x2000 ? "public" : "reserved";
    default:
      // site-local, local-use NAT64, Teredo, documentation, benchmarking, ORCHID, discard, ...
      return "reserved";
  }
}

/** An embedded public address in a deprecated transition form is still refused (as reserved). */
function worst(embedded: AddressClass): AddressClass {
  return embedded === "public" ? "reserved" : embedded;
}

/**
 * Classifies an IP address given as text: dotted IPv4 (also the loose forms `127.1`,
 * `0x7f.0.0.1`, `2130706433`), IPv6 with or without brackets and zone id.
 */
export function classifyAddress(input: string): AddressClass {
  // a pure function of the text: every webhook attempt checks the same few hosts again
  return classified.get(input, () => classifyUncached(input));
}

const classified = new TextMemo<AddressClass>(1024);

function classifyUncached(input: string): AddressClass {
  let s = input.trim();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  // ipaddr.js reads `::a.b.c.d` as IPv4-mapped; the OS reads it as IPv4-compatible, so spell it in hex first
  if (s.includes(":")) s = s.replace(/(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/, (m, a, b, c, d) => {
    const o = [a, b, c, d].map(Number);
    if (o.some((x) => x > 255)) return m;
    return `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  });
  try {
    const { IPv4, IPv6 } = ipaddr();
    if (IPv6.isValid(s)) return classifyV6(IPv6.parse(s));
    if (IPv4.isValid(s)) return classifyV4(IPv4.parse(s));
  } catch {
    // unparsable: invalid below
  }
  return "invalid";
}

/** Whether a connection to an address of this class is allowed. */
export function isAllowedClass(cls: AddressClass, allowPrivate: boolean): boolean {
  if (cls === "public") return true;
  return allowPrivate && !NEVER_ALLOWED.has(cls);
}

export type UrlGuardReason = "invalid_url" | "scheme_not_allowed" | "credentials_not_allowed" | "address_not_allowed" | "dns_failed";

/** A URL refused by the guard; `reason` is stable for callers, the message is for people. */
export class UrlGuardError extends Error {
  constructor(
    readonly reason: UrlGuardReason,
    message: string,
    readonly address?: string,
    readonly addressClass?: AddressClass,
  ) {
    super(message);
    this.name = "UrlGuardError";
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (injectable: tests resolve made-up names). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo), every address, in the resolver's order. */
export const systemResolver: Resolver = async (hostname) => {
  const all = await nodeDns().lookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface GuardOptions {
  allowHttp: boolean;
  allowPrivate: boolean;
  resolver?: Resolver;
}

export interface CheckedUrl {
  url: URL;
  /** host name without IPv6 brackets */
  host: string;
  /** every address the host resolved to, all of them allowed */
  addresses: ResolvedAddress[];
}

/** Parses and checks the form of a URL (scheme, credentials, host) without resolving it. */
export function parseGuardedUrl(raw: string, opts: Pick<GuardOptions, "allowHttp">): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlGuardError("invalid_url", "URL is not valid");
  }
  if (url.protocol !== "https:" && !(opts.allowHttp && url.protocol === "http:")) {
    if (opts.allowHttp) throw new UrlGuardError("scheme_not_allowed", "URL must use http or https");
    const hint = url.protocol === "http:" ? `; ${operatorHint("webhookAllowHttp", "plain http receivers")}` : "";
    throw new UrlGuardError("scheme_not_allowed", `URL must use https${hint}`);
  }
  // credentials in the URL would show in every listing of it
  if (url.username || url.password) throw new UrlGuardError("credentials_not_allowed", "URL must not contain a user name or password");
  if (!url.hostname) throw new UrlGuardError("invalid_url", "URL has no host");
  url.hash = "";
  return url;
}

/**
 * Names the settings that lift a refusal, so whoever runs a local receiver (tests, a LAN
 * service) learns the switch from the error instead of the source.
 */
function operatorHint(key: ConfigKey, what: string): string {
  return `the server operator can allow ${what} with ${envName(key)}=true (serve ${flagName(key)})`;
}

function refuse(address: string, cls: AddressClass, allowPrivate: boolean): UrlGuardError {
  const what = cls === "invalid" ? "an invalid" : `a ${cls === "carrierGradeNat" ? "carrier-grade NAT" : cls === "linkLocal" ? "link-local" : cls}`;
  // only classes that the setting would allow get the hint
  const hint = !allowPrivate && !NEVER_ALLOWED.has(cls) ? `; ${operatorHint("webhookAllowPrivate", "loopback and private receivers")}` : "";
  return new UrlGuardError("address_not_allowed", `URL host resolves to ${what} address (${address}); only public addresses are allowed${hint}`, address, cls);
}

/** Resolves the URL's host and checks EVERY address; returns what was checked so the caller connects there. */
export async function checkUrl(raw: string, opts: GuardOptions): Promise<CheckedUrl> {
  const url = parseGuardedUrl(raw, opts);
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: ResolvedAddress[];
  const literal = classifyAddress(host);
  if (literal !== "invalid") {
    addresses = [{ address: host, family: host.includes(":") ? 6 : 4 }];
  } else {
    try {
      addresses = await (opts.resolver ?? systemResolver)(host);
    } catch (err) {
      throw new UrlGuardError("dns_failed", `URL host ${host} could not be resolved (${(err as { code?: string }).code ?? "error"})`);
    }
    if (!addresses.length) throw new UrlGuardError("dns_failed", `URL host ${host} has no addresses`);
  }
  for (const a of addresses) {
    const cls = classifyAddress(a.address);
    if (!isAllowedClass(cls, opts.allowPrivate)) throw refuse(a.address, cls, opts.allowPrivate);
  }
  return { url, host, addresses };
}

/** Save-time check: resolves and classifies; returns the normalized URL or throws UrlGuardError. */
export async function assertSafeUrl(raw: string, opts: GuardOptions): Promise<string> {
  return (await checkUrl(raw, opts)).url.href;
}
