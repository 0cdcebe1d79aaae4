#!/usr/bin/env bash
# `npm run soak`: installs the dependencies when they are missing (test/install-deps.sh), builds the package, then
# runs test/e2e/soak/run.ts (which provisions n8n if needed, packs the package and runs the soak; README.md here).
# Arguments are passed on, e.g. `npm run soak -- --trigger webhook --updates 1500 --restart-every 120 --kill-once`.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bash test/install-deps.sh
echo "soak: building the package…"
npm run --silent build
exec node node_modules/ts-node/dist/bin.js --transpile-only --project test/tsconfig.json test/e2e/soak/run.ts "$@"
