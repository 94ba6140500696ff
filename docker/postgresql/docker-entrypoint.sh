#!/bin/sh
# First start (an empty PGDATA): initdb with POSTGRES_USER as the superuser and POSTGRES_PASSWORD as
# its password (scram-sha-256 over TCP from anywhere, trust on the local socket), then a server on
# the socket only to create POSTGRES_DB and run the *.sql files of /docker-entrypoint-initdb.d (in
# name order, in POSTGRES_DB, as POSTGRES_USER), stopped again. Then the real server in the foreground. As
# with the official image, the first start logs "database system is ready to accept connections"
# twice (the temporary server, then the real one), which is what Testcontainers waits for.
set -eu

user="${POSTGRES_USER:-postgres}"
password="${POSTGRES_PASSWORD:-}"
database="${POSTGRES_DB:-$user}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "$password" ]; then
    echo "POSTGRES_PASSWORD is not set: it is the password of the superuser $user" >&2
    exit 1
  fi
  pwfile="$(mktemp)"
  printf '%s' "$password" > "$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  {
    echo "host all all 0.0.0.0/0 scram-sha-256"
    echo "host all all ::/0 scram-sha-256"
  } >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
  if [ "$database" != "postgres" ]; then
    psql -v ON_ERROR_STOP=1 -h /var/run/postgresql -U "$user" -d postgres -q \
      -c "CREATE DATABASE \"$database\" OWNER \"$user\""
  fi
  for f in /docker-entrypoint-initdb.d/*.sql; do
    [ -e "$f" ] || continue
    echo "running $f"
    psql -v ON_ERROR_STOP=1 -h /var/run/postgresql -U "$user" -d "$database" -q -f "$f"
  done
  pg_ctl -D "$PGDATA" -m fast -w stop
fi

if [ "${1:-}" = "postgres" ]; then
  shift
  exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"
