#!/usr/bin/env bash
# npm run bench — see test/bench/run.ts. From a fresh clone: installs the dev dependencies if they are
# missing (test/install-deps.sh) and the pinned real n8n 2.41.1 (for n8n's Telegram node) via
# test/real-n8n/provision.sh (instant when cached, ~10 min cold), then runs the bench.
# Arguments are passed on to run.ts.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/install-deps.sh
BENCH_N8N_CACHE="$(bash test/real-n8n/provision.sh | tail -n 1)"
export BENCH_N8N_CACHE
export TS_NODE_PROJECT=test/tsconfig.json TS_NODE_TRANSPILE_ONLY=true TS_NODE_PREFER_TS_EXTS=true
# n8n-core's InstanceSettings keeps its settings file in the n8n user folder: keep it out of $HOME.
export N8N_USER_FOLDER="$PWD/test/output/bench/n8n-user"
mkdir -p "$N8N_USER_FOLDER"
exec node --expose-gc -r ts-node/register test/bench/run.ts "$@"
