// Node built-ins the server needs only on some requests, loaded on first use. Importing them at
// start builds Bun's node streams and their friends for every process: node:crypto ~2.5 MB,
// node:tls ~1.7 MB, node:dns/promises ~1 MB of resident memory at idle (issue 13). require()
// caches the module: later calls cost a lookup.

/** node:crypto (AES-GCM sealing, timingSafeEqual). */
export const nodeCrypto = (): typeof import("node:crypto") => require("node:crypto");

/** node:tls (the system root certificates). */
export const nodeTls = (): typeof import("node:tls") => require("node:tls");

/** node:dns/promises (getaddrinfo lookups). */
export const nodeDns = (): typeof import("node:dns/promises") => require("node:dns/promises");

/** node:fs/promises (media files, the sim network's sent log): Bun's module of it is JavaScript of its own. */
export const nodeFsPromises = (): typeof import("node:fs/promises") => require("node:fs/promises");

/** node:zlib (the dashboard assets' gzip and brotli forms, made with the first request for them). */
export const nodeZlib = (): typeof import("node:zlib") => require("node:zlib");
