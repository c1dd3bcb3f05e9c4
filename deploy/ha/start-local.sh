#!/usr/bin/env bash
# Starts the whole high-availability recipe on this one machine: one etcd member, two Patroni-managed
# PostgreSQL 15 nodes in synchronous replication, and HAProxy whose read-write port leads to the primary.
#
#   deploy/ha/start-local.sh            start the cluster, print the service's DATABASE_URL
#   deploy/ha/start-local.sh --service  the same, then run the service on it (npm start) in the foreground
#   deploy/ha/stop-local.sh             stop everything started here
#
# Settings (environment): HA_DIR (default /tmp/paycollect-ha) holds data, logs and pids; HA_BASE_PORT
# (default 25400) is the first of eight loopback ports: etcd client and peer, the two PostgreSQL nodes,
# their two Patroni REST APIs, HAProxy's read-write port and its statistics page. As root, etcd and
# HAProxy run as root and Patroni (PostgreSQL refuses root) as the `postgres` user. Needs the Debian
# packages patroni, etcd-server, haproxy, curl and postgresql-15 (docs/ha.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
DIR="${HA_DIR:-/tmp/paycollect-ha}"
BASE="${HA_BASE_PORT:-25400}"
PASSWORD="${HA_PASSWORD:-paycollect-local}"
DATABASE="${HA_DATABASE:-paycollect}"
ETCD_PORT=$BASE ETCD_PEER_PORT=$((BASE + 1)) PG1_PORT=$((BASE + 2)) PG2_PORT=$((BASE + 3))
API1_PORT=$((BASE + 4)) API2_PORT=$((BASE + 5)) RW_PORT=$((BASE + 6)) STATS_PORT=$((BASE + 7))

for binary in etcd patroni haproxy curl /usr/lib/postgresql/15/bin/postgres; do
  command -v "$binary" >/dev/null || { echo "missing $binary: apt-get install -y patroni etcd-server haproxy curl postgresql-15" >&2; exit 1; }
done
if [ -e "$DIR/pids" ]; then echo "$DIR holds a running recipe: deploy/ha/stop-local.sh first" >&2; exit 1; fi
mkdir -p "$DIR/etcd" "$DIR/node1" "$DIR/node2"
chmod 700 "$DIR/node1" "$DIR/node2"
# everything below uses whole paths; the processes start in $DIR, which the postgres user can enter (it
# may not enter the folder this was called from: initdb and Patroni then stop at "Permission denied")
DIR="$(cd "$DIR" && pwd)"
cd "$DIR"
as_postgres=()
if [ "$(id -u)" = 0 ]; then
  # the postgres user must reach its node's folder (a mktemp -d folder is 700, root's own)
  chmod 755 "$DIR"
  chown -R postgres:postgres "$DIR/node1" "$DIR/node2"
  as_postgres=(runuser -u postgres --)
fi

# waits up to $2 seconds for the command in $3... to succeed; says what it waited for on failure
wait_for() {
  local what="$1" seconds="$2"; shift 2
  for _ in $(seq 1 $((seconds * 5))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "timed out after ${seconds}s waiting for $what (logs in $DIR)" >&2
  exit 1
}
render() {
  sed -e "s|@DIR@|$DIR|g" -e "s|@ETCD@|127.0.0.1:$ETCD_PORT|g" -e "s|@PASSWORD@|$PASSWORD|g" \
    -e "s|@RW_PORT@|$RW_PORT|g" -e "s|@STATS_PORT@|$STATS_PORT|g" -e "s|@NODE1@|node1|g" -e "s|@NODE2@|node2|g" \
    -e "s|@PG1_PORT@|$PG1_PORT|g" -e "s|@PG2_PORT@|$PG2_PORT|g" -e "s|@API1_PORT@|$API1_PORT|g" -e "s|@API2_PORT@|$API2_PORT|g" "$@"
}
start() { # name, command...: in the background, its pid and log kept in $DIR
  local name="$1"; shift
  nohup "$@" >"$DIR/$name.log" 2>&1 &
  echo "$name $!" >>"$DIR/pids"
}

# etcd: one member here, said plainly: it is the cluster's memory of who leads, and one member is a
# single point of failure. Three machines run three members (docs/ha.md).
start etcd etcd --name etcd1 --data-dir "$DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "etcd1=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new
wait_for etcd 30 curl -fsS "http://127.0.0.1:$ETCD_PORT/health"

for n in 1 2; do
  pg_port_var="PG${n}_PORT" api_port_var="API${n}_PORT"
  render -e "s|@NAME@|node$n|g" -e "s|@PG_PORT@|${!pg_port_var}|g" -e "s|@API_PORT@|${!api_port_var}|g" \
    "$here/patroni.yml.in" >"$DIR/node$n/patroni.yml"
  [ ${#as_postgres[@]} -gt 0 ] && chown postgres:postgres "$DIR/node$n/patroni.yml"
  start "patroni-node$n" "${as_postgres[@]}" patroni "$DIR/node$n/patroni.yml"
  # the first node initialises the cluster and leads; the second is copied from it and follows
  if [ "$n" = 1 ]; then wait_for "node1 to lead" 60 curl -fsS "http://127.0.0.1:$API1_PORT/primary"; fi
done
wait_for "node2 to be the synchronous standby" 60 curl -fsS "http://127.0.0.1:$API2_PORT/sync"

render "$here/haproxy.cfg.in" >"$DIR/haproxy.cfg"
start haproxy haproxy -f "$DIR/haproxy.cfg"
# HAProxy counts a server as up until its checks have failed (fall 2: about a second), so for a moment
# after it starts it also leads to the standby; wait until its statistics show the primary alone
# (node1, which leads the cluster it initialised)
only_primary_up() {
  [ "$(curl -fsS "http://127.0.0.1:$STATS_PORT/;csv" | awk -F, '$1 == "primary" && $2 != "FRONTEND" && $2 != "BACKEND" && $18 == "UP" { print $2 }')" = node1 ]
}
wait_for "HAProxy to lead to the primary alone" 30 only_primary_up
PSQL=(/usr/lib/postgresql/15/bin/psql -h 127.0.0.1 -p "$RW_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt)
export PGPASSWORD="$PASSWORD"
wait_for "HAProxy's read-write port" 30 "${PSQL[@]}" -c 'SELECT 1'
if [ "$("${PSQL[@]}" -c "SELECT count(*) FROM pg_database WHERE datname = '$DATABASE'")" = 0 ]; then
  "${PSQL[@]}" -c "CREATE DATABASE \"$DATABASE\""
fi
# the service's own first connection goes the same way: wait until the new database answers through it
wait_for "the database through HAProxy" 30 /usr/lib/postgresql/15/bin/psql -h 127.0.0.1 -p "$RW_PORT" -U postgres -d "$DATABASE" -v ON_ERROR_STOP=1 -qAt -c 'SELECT 1'

url="postgres://postgres:$PASSWORD@127.0.0.1:$RW_PORT/$DATABASE"
echo "$url" >"$DIR/database-url"
cat <<INFO
PayCollect HA recipe running in $DIR
  primary (read-write, through HAProxy)  $url
  Patroni REST APIs                      http://127.0.0.1:$API1_PORT  http://127.0.0.1:$API2_PORT
  HAProxy statistics                     http://127.0.0.1:$STATS_PORT/
  cluster state                          patronictl -c $DIR/node1/patroni.yml list
  stop                                   deploy/ha/stop-local.sh
INFO
if [ "${1:-}" = "--service" ]; then
  cd "$here/../.."
  DATABASE_URL="$url" exec npm start
fi
