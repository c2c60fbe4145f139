#!/usr/bin/env bash
# Brings deploy/compose.cluster.yml up for real and checks the cluster it makes, then takes it
# down. Needs a running Docker engine; not part of `npm test` (CI machines have none).
#
#   bash test/deploy/compose-up.sh            # with the images of the compose file
#   STANDINS=1 ROOTFS=/tmp/rootfs bash test/deploy/compose-up.sh
#
# STANDINS=1 is for a machine that cannot reach Docker Hub: the third-party images the compose
# file names (debian, node, postgres, seaweedfs, caddy) are built locally under the same tags
# from Debian's packages and npm (test/deploy/standins/), starting from a Debian root file system
# made with `debootstrap --variant=minbase bookworm $ROOTFS`. Behind a proxy that intercepts
# TLS, its CA certificates (EXTRA_CA_DIR, default /usr/local/share/ca-certificates) are trusted
# in the Node stand-in, so npm works in it and in Parley's build stage. Parley's own image is always built
# from the repository's Dockerfile, as the compose file says.
#
# Checks: every node healthy behind the load balancer, which spreads requests over all three;
# `parley nodes` lists three live nodes; a workspace and an API key made with the CLI in one
# node work through the load balancer; a file uploaded through one node is downloaded through
# every node (the shared S3 store); a node killed (kill -9) is reported dead and the load
# balancer keeps answering; a node restarted (SIGTERM) comes back.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
STANDINS_DIR="$ROOT/test/deploy/standins"
LB="http://127.0.0.1:8080"
WORK="$(mktemp -d)"
say() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose); else COMPOSE=(docker-compose); fi
FILE="$ROOT/deploy/compose.cluster.yml"
if [ "${COMPOSE[0]}" = docker-compose ]; then
  # Compose v1 does not know the top-level `name`: the project is named on the command line
  FILE="$ROOT/deploy/.compose.v1.yml"
  grep -v '^name:' "$ROOT/deploy/compose.cluster.yml" > "$FILE"
fi
# what this script made: the scratch dir, the v1 copy of the file, the stand-ins' copied inputs
cleanup() {
  rm -rf "$WORK" "$STANDINS_DIR/extra-ca" "$STANDINS_DIR/host-node"
  [ "$FILE" = "$ROOT/deploy/compose.cluster.yml" ] || rm -f "$FILE"
}
trap cleanup EXIT
dc() { "${COMPOSE[@]}" -p parley-cluster -f "$FILE" "$@"; }

if [ "${STANDINS:-}" = 1 ]; then
  say "stand-in images (no registry)"
  if ! docker image inspect debian:bookworm-slim >/dev/null 2>&1; then
    [ -d "${ROOTFS:-}" ] || fail "ROOTFS must be a debootstrapped Debian bookworm"
    tar -C "$ROOTFS" -c . | docker import - debian:bookworm-slim
  fi
  # an intercepting proxy's certificates (EXTRA_CA_DIR), trusted in the Node stand-in
  rm -rf "$STANDINS_DIR/extra-ca" && mkdir -p "$STANDINS_DIR/extra-ca"
  cp "${EXTRA_CA_DIR:-/usr/local/share/ca-certificates}"/*.crt "$STANDINS_DIR/extra-ca/" 2>/dev/null || true
  # Node.js 20 and npm from this machine, for the Node stand-in
  rm -rf "$STANDINS_DIR/host-node" && mkdir -p "$STANDINS_DIR/host-node"
  cp "$(command -v node)" "$STANDINS_DIR/host-node/node"
  cp -r "$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")" "$STANDINS_DIR/host-node/npm"
  build() { docker image inspect "$1" >/dev/null 2>&1 || docker build -q -t "$1" -f "$STANDINS_DIR/$2" "$STANDINS_DIR"; }
  build node:20-bookworm node.Dockerfile
  build postgres:16 postgres.Dockerfile
  build caddy:2 caddy.Dockerfile
  build chrislusf/seaweedfs:latest seaweedfs.Dockerfile
fi

say "up --build"
dc down -v --remove-orphans >/dev/null 2>&1 || true
dc up -d --build

say "healthy behind the load balancer"
for i in $(seq 1 180); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$LB/ready" || true)" = 200 ] && break
  [ "$i" = 180 ] && { dc ps; dc logs --tail=40; fail "the load balancer never answered /ready"; }
  sleep 2
done
# every node answers (Caddy takes a node in once its /ready passes)
seen=""
for i in $(seq 1 120); do
  seen="$(printf '%s\n%s' "$seen" "$(curl -s "$LB/health" | sed -n 's/.*"node":"\([^"]*\)".*/\1/p')" | sort -u | grep -v '^$' || true)"
  [ "$(echo "$seen" | wc -l)" = 3 ] && break
  sleep 0.5
done
echo "nodes seen through the load balancer: $(echo $seen)"
[ "$(echo "$seen" | wc -l)" = 3 ] || fail "not every node answered through the load balancer"

say "parley nodes"
dc exec -T node1 parley nodes --json | tr -d ' \n' | tee "$WORK/nodes.json"; echo
[ "$(grep -o '"alive":true' "$WORK/nodes.json" | wc -l)" = 3 ] || fail "parley nodes does not list three live nodes"

say "a workspace and an API key from the CLI of one node, used through the load balancer"
echo "a-long-trial-password-1" | dc exec -T node1 parley workspaces create --name "Compose Trial" --owner-email owner@example.com --owner-name Owner --password-stdin --plan unlimited > /dev/null
KEY="$(dc exec -T node2 parley keys create -w "Compose Trial" -n compose | grep -o 'pk_[A-Za-z0-9_-]*' | head -1)"
[ -n "$KEY" ] || fail "no API key printed"
for i in 1 2 3; do
  code="$(curl -s -o /dev/null -w '%{http_code}' "$LB/api/external/sessions" -H "X-API-Key: $KEY")"
  [ "$code" = 200 ] || fail "GET /api/external/sessions answered $code"
done

say "media through the shared S3 store"
printf 'parley compose media check %s\n' "$(date +%s%N)" > "$WORK/note.txt"
ID="$(curl -s "$LB/api/external/media" -H "X-API-Key: $KEY" -F "file=@$WORK/note.txt;type=text/plain" -F type=document | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')"
[ -n "$ID" ] || fail "upload failed"
for i in 1 2 3 4 5 6; do
  curl -s -f "$LB/api/external/media/$ID" -H "X-API-Key: $KEY" -o "$WORK/got.txt" || fail "download $i failed"
  cmp -s "$WORK/note.txt" "$WORK/got.txt" || fail "download $i differs"
done
echo "uploaded $ID; downloaded 6 times, round robin over the nodes, identical"

say "kill -9 of node2: reported dead, the load balancer keeps answering"
dc kill -s SIGKILL node2
for i in $(seq 1 40); do
  dc exec -T node1 parley nodes --json | tr -d ' \n' > "$WORK/nodes.json"
  grep -q '"id":"node2"[^}]*"alive":false' "$WORK/nodes.json" && break
  [ "$i" = 40 ] && { cat "$WORK/nodes.json"; fail "node2 still reported alive"; }
  sleep 1
done
echo "node2 reported dead after ~${i}s"
for i in $(seq 1 20); do
  code="$(curl -s -o /dev/null -w '%{http_code}' "$LB/api/external/sessions" -H "X-API-Key: $KEY")"
  [ "$code" = 200 ] || fail "with node2 dead a request answered $code"
done

say "SIGTERM restart of node1 (a rolling restart's step) and node2 back"
dc restart node1
dc start node2
for i in $(seq 1 90); do
  dc exec -T node3 parley nodes --json | tr -d ' \n' > "$WORK/nodes.json"
  [ "$(grep -o '"alive":true' "$WORK/nodes.json" | wc -l)" = 3 ] && break
  [ "$i" = 90 ] && { cat "$WORK/nodes.json"; fail "three live nodes never came back"; }
  sleep 1
done
echo "three live nodes again"

say "down"
dc down -v --remove-orphans
echo "compose cluster: every check passed"
