#!/usr/bin/env bash
# `npm run test:e2e:queue` / `npm run bench:queue`: installs the dependencies when they are missing
# (test/install-deps.sh), builds the package, then runs test/e2e/queue/run.ts (which provisions n8n if needed, packs
# the package and runs the queue-mode scenarios, or with --bench the throughput measurement).
# Needs Debian's postgresql (initdb, postgres) and redis-server on the machine; .ci/run installs them.
set -euo pipefail
cd "$(dirname "$0")/../../.."
command -v redis-server >/dev/null || { echo "e2e-queue: redis-server is missing (apt-get install redis-server)" >&2; exit 1; }
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || { echo "e2e-queue: Postgres is missing (apt-get install postgresql)" >&2; exit 1; }
bash test/install-deps.sh
echo "e2e-queue: building the package…"
npm run --silent build
exec node node_modules/ts-node/dist/bin.js --transpile-only --project test/tsconfig.json test/e2e/queue/run.ts "$@"
