#!/usr/bin/env bash
# npm run bench:trigger — polling vs webhook delivery of the triggers (see test/bench/trigger-delivery.ts).
# Installs the dev dependencies when they are missing (test/install-deps.sh); arguments are passed on.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/install-deps.sh
export TS_NODE_PROJECT=test/tsconfig.json TS_NODE_TRANSPILE_ONLY=true TS_NODE_PREFER_TS_EXTS=true
# n8n-core's InstanceSettings keeps its settings file in the n8n user folder: keep it out of $HOME.
export N8N_USER_FOLDER="$PWD/test/output/bench/n8n-user"
mkdir -p "$N8N_USER_FOLDER"
exec node -r ts-node/register test/bench/trigger-delivery.ts "$@"
