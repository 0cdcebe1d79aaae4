#!/usr/bin/env bash
# `npm run test:e2e`: installs the dependencies when they are missing (test/install-deps.sh), builds the package, then
# runs test/e2e/run.ts (which provisions n8n if needed, packs the package and runs the scenarios).
# Arguments are passed on: scenario numbers or words to run only some, --keep to keep user folders.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/install-deps.sh
echo "e2e: building the package…"
npm run --silent build
exec node node_modules/ts-node/dist/bin.js --transpile-only --project test/tsconfig.json test/e2e/run.ts "$@"
