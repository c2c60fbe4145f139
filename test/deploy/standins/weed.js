// The stand-in `weed` (see seaweedfs.Dockerfile).
const http = require("node:http");
const [cmd, ...args] = process.argv.slice(2);
const opt = (name, dflt) => (args.find((a) => a.startsWith(`-${name}=`)) ?? `=${dflt}`).split("=").slice(1).join("=");
if (cmd === "server") {
  const S3rver = require("s3rver");
  // the access keys of SeaweedFS's S3 configuration (-s3.config), as s3rver accounts
  const { DUMMY_ACCOUNT } = require("s3rver/lib/models/account");
  const config = opt("s3.config", "");
  if (config) for (const id of JSON.parse(require("node:fs").readFileSync(config, "utf8")).identities ?? []) for (const c of id.credentials ?? []) DUMMY_ACCOUNT.createKeyPair(c.accessKey, c.secretKey);
  const port = Number(opt("s3.port", 8333));
  new S3rver({ port, address: "0.0.0.0", directory: opt("dir", "/data"), silent: true, allowMismatchedSignatures: true, vhostBuckets: false })
    .run()
    .then(() => console.log(`s3 API on ${port}`));
  http.createServer((_, res) => res.end('{"IsLeader":true}')).listen(9333, "0.0.0.0");
} else if (cmd === "shell") {
  const master = new URL(`http://${opt("master", "localhost:9333")}`);
  let input = "";
  process.stdin.on("data", (d) => (input += d));
  process.stdin.on("end", () => {
    const m = /s3\.bucket\.create -name (\S+)/.exec(input);
    if (!m) return console.log("nothing to do");
    const req = http.request({ host: master.hostname, port: 8333, method: "PUT", path: `/${m[1]}`, headers: { "x-amz-acl": "private" } }, (res) => {
      console.log(`bucket ${m[1]}: ${res.statusCode}`);
      process.exit(res.statusCode < 300 || res.statusCode === 409 ? 0 : 1);
    });
    req.on("error", (e) => (console.error(e.message), process.exit(1)));
    req.end();
  });
} else {
  console.error(`unknown command ${cmd}`);
  process.exit(2);
}
