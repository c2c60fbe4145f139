# Stand-in for node:20-bookworm: Node.js 20 and npm 10, as in the official image. Node and npm
# are copied from the machine (host-node/, put there by compose-up.sh: Node.js has no Debian
# package of that version), npm then set to 10 from the registry. extra-ca/ holds the
# certificates of an intercepting proxy, if the machine has one: npm and Node trust them.
FROM debian:bookworm-slim
COPY extra-ca/ /usr/local/share/ca-certificates/
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates git && rm -rf /var/lib/apt/lists/* && update-ca-certificates
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
COPY host-node/node /usr/local/bin/node
COPY host-node/npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
  && npm install -g --no-audit --no-fund npm@10 && node --version && npm --version
