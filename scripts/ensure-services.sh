#!/usr/bin/env bash
# Makes sure the PostgreSQL server the tests use answers (and Redis, when installed); starts them if they are down.
set -uo pipefail

pg_url="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"

postgres_up() {
  node -e "const pg=require('pg');const c=new pg.Client({connectionString:process.argv[1]});
    c.connect().then(()=>c.end()).then(()=>process.exit(0),()=>process.exit(1))" "$pg_url" 2>/dev/null
}

if ! postgres_up; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    echo "PostgreSQL is not answering; starting it" >&2
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
    for _ in $(seq 1 30); do postgres_up && break; sleep 1; done
  fi
fi
if ! postgres_up; then
  echo "PostgreSQL at $pg_url is required by the test suite and could not be reached or started." >&2
  exit 1
fi

if command -v redis-cli >/dev/null 2>&1 && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  if command -v redis-server >/dev/null 2>&1; then
    echo "Redis is not answering; starting it" >&2
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  fi
fi
exit 0
