// The sim network process's server (what `parley sim-network` runs) in a child of the bench: on
// SIGUSR2 it runs a full GC and prints its memory as a JSON line on stdout, after the line that
// says where it listens.
import { startSimNetwork } from "../../src/network/sim-network/server.ts";
import { benchDir } from "./tmp.ts";

const net = startSimNetwork({ port: 0, dataDir: benchDir("parley-simnet-bench-") });
process.on("SIGUSR2", () => {
  Bun.gc(true);
  const m = process.memoryUsage();
  console.log(JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed }));
});
process.on("SIGTERM", () => void net.stop().then(() => process.exit(0)));
console.log(JSON.stringify({ listening: net.url, port: net.port }));
