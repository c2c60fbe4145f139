import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { loadConfig } from "../../src/config.ts";

// deploy/compose.cluster.yml cannot be run here (no docker): it is parsed, and its services are
// checked to refer to each other as a cluster needs (docs/cluster-deployment.md).

const ROOT = join(import.meta.dir, "../..");
const FILE = join(ROOT, "deploy/compose.cluster.yml");

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  depends_on?: string[] | Record<string, { condition: string }>;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
}
const compose = Bun.YAML.parse(readFileSync(FILE, "utf8")) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;
const nodes = Object.entries(services).filter(([, s]) => s.build);
const dependsOn = (s: Service) => (Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {}));
const hostOf = (url: string) => new URL(url).hostname;

test("the compose file parses: PostgreSQL, an S3-compatible store, three Parley nodes from the Dockerfile, a load balancer", () => {
  expect(Object.keys(services)).toEqual(expect.arrayContaining(["postgres", "s3", "lb"]));
  expect(nodes.map(([n]) => n)).toEqual(["node1", "node2", "node3"]);
  for (const [, s] of nodes) expect(existsSync(join(resolve(dirname(FILE), s.build!.context), s.build!.dockerfile))).toBe(true);
});

test("every dependency, volume and mounted file it names exists", () => {
  for (const [name, s] of Object.entries(services)) {
    for (const d of dependsOn(s)) expect(`${name} -> ${d}: ${d in services}`).toBe(`${name} -> ${d}: true`);
    for (const v of s.volumes ?? []) {
      const source = v.split(":")[0]!;
      if (source.startsWith(".")) expect(`${name} mounts ${source}: ${existsSync(resolve(dirname(FILE), source))}`).toBe(`${name} mounts ${source}: true`);
      else expect(`${name} volume ${source}: ${source in (compose.volumes ?? {})}`).toBe(`${name} volume ${source}: true`);
    }
  }
});

test("the nodes share one database and one media store, each with a data volume and a name of its own, and their settings are valid", () => {
  const ids = new Set<string>();
  const volumes = new Set<string>();
  for (const [name, s] of nodes) {
    const env = s.environment!;
    expect(hostOf(env.PARLEY_DATABASE_URL!)).toBe("postgres");
    expect(env.PARLEY_MEDIA_URL).toMatch(/^s3:\/\//);
    expect(hostOf(env.S3_ENDPOINT!)).toBe("s3");
    expect(dependsOn(s)).toEqual(expect.arrayContaining(["postgres"]));
    ids.add(env.PARLEY_NODE_ID!);
    volumes.add(s.volumes![0]!.split(":")[0]!);
    // what a node reads from these variables is a valid configuration
    const config = loadConfig({ databaseUrl: env.PARLEY_DATABASE_URL, mediaUrl: env.PARLEY_MEDIA_URL, publicUrl: env.PARLEY_PUBLIC_URL, trustProxy: env.PARLEY_TRUST_PROXY, network: env.PARLEY_NETWORK });
    expect(`${name} ${config.mediaUrl}`).toBe(`${name} ${env.PARLEY_MEDIA_URL}`);
  }
  expect(ids.size).toBe(nodes.length);
  expect(volumes.size).toBe(nodes.length);
  // the database's credentials are the ones the nodes use
  const pg = services.postgres!.environment!;
  const url = new URL(nodes[0]![1].environment!.PARLEY_DATABASE_URL!);
  expect([url.username, url.password, url.pathname.slice(1)]).toEqual([pg.POSTGRES_USER!, pg.POSTGRES_PASSWORD!, pg.POSTGRES_DB!]);
  // the bucket the init service makes is the one the nodes use
  expect(JSON.stringify(services["s3-bucket"])).toContain(`-name ${new URL(nodes[0]![1].environment!.PARLEY_MEDIA_URL!).hostname}`);
});

test("the load balancer sends to every node's port, checks GET /ready, and is the one published port", () => {
  const lb = services.lb!;
  expect(dependsOn(lb).sort()).toEqual(nodes.map(([n]) => n).sort());
  const caddyfile = readFileSync(join(dirname(FILE), "Caddyfile"), "utf8");
  for (const [n] of nodes) expect(caddyfile).toContain(`${n}:3000`);
  expect(caddyfile).toMatch(/health_uri \/ready/);
  const published = Object.entries(services).filter(([, s]) => s.ports?.length).map(([n]) => n);
  expect(published).toEqual(["lb"]);
  expect(nodes[0]![1].environment!.PARLEY_PUBLIC_URL).toBe(`http://localhost:${lb.ports![0]!.split(":")[0]}`);
});
