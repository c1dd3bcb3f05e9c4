#!/usr/bin/env bash
# Stops what deploy/ha/start-local.sh started (HAProxy, the Patroni nodes with their PostgreSQL, etcd) and,
# with --clean, deletes its directory (HA_DIR, default /tmp/paycollect-ha).
set -uo pipefail
DIR="${HA_DIR:-/tmp/paycollect-ha}"
[ -e "$DIR/pids" ] || { echo "nothing started in $DIR"; exit 0; }
# HAProxy first (no new sessions), then Patroni (it stops its PostgreSQL), then etcd last
for name in haproxy patroni-node2 patroni-node1 etcd; do
  pid="$(awk -v n="$name" '$1 == n { print $2 }' "$DIR/pids")"
  [ -n "$pid" ] || continue
  kill -TERM "$pid" 2>/dev/null || continue
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
done
# a PostgreSQL whose Patroni was killed outright is stopped too
for n in node1 node2; do
  pm="$DIR/$n/data/postmaster.pid"
  [ -f "$pm" ] && kill -QUIT "$(head -1 "$pm")" 2>/dev/null
done
rm -f "$DIR/pids"
[ "${1:-}" = "--clean" ] && rm -rf "$DIR"
echo "stopped"
