#!/usr/bin/env bash
# npm run bench:trigger / bench:markdown — runs one bench script of this folder (the first argument,
# e.g. trigger-delivery.ts or markdown.ts) through n8n-core in-process; the other arguments are passed on.
# Installs the dev dependencies when they are missing (test/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/install-deps.sh
export TS_NODE_PROJECT=test/tsconfig.json TS_NODE_TRANSPILE_ONLY=true TS_NODE_PREFER_TS_EXTS=true
# n8n-core's InstanceSettings keeps its settings file in the n8n user folder: keep it out of $HOME.
export N8N_USER_FOLDER="$PWD/test/output/bench/n8n-user"
mkdir -p "$N8N_USER_FOLDER"
script="$1"
shift
exec node -r ts-node/register "test/bench/$script" "$@"
