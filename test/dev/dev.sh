#!/usr/bin/env bash
# `npm run dev`: works on a fresh clone. Installs the dependencies when they are missing
# (test/install-deps.sh, the same step as `npm test`), builds the package, installs the pinned n8n
# into the cache folder (test/real-n8n/provision.sh; once, about 5–15 minutes cold), then hands over
# to test/dev/dev.ts, which starts the emulator and n8n.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/install-deps.sh
echo "dev: building the package…"
npm run --silent build
echo "dev: checking the n8n install (test/real-n8n/provision.sh)…"
bash test/real-n8n/provision.sh >/dev/null
exec node node_modules/ts-node/dist/bin.js --transpile-only --project test/tsconfig.json test/dev/dev.ts "$@"
