#!/usr/bin/env bash
# The one install step of this repository: `npm test`, `npm run dev`, `npm run bench` and
# `npm run test:e2e` all start with it, so each works on a fresh clone, in any order.
# Installs the dev dependencies from the lockfile (`npm ci`) when they are missing, when an
# earlier install did not finish (npm writes node_modules/.package-lock.json last), or when the
# lockfile changed since (a pulled commit added a dependency). Otherwise it does nothing. `.npmrc` sets ignore-scripts: n8n 2.41's isolated-vm needs Node 24 to build and
# nothing here loads it.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.installed-from-lockfile
lockfile="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f node_modules/.package-lock.json ] || [ "$(cat "$stamp" 2>/dev/null)" != "$lockfile" ]; then
	echo "installing the dependencies (npm ci, about 2 minutes the first time)…" >&2
	npm ci --no-audit --no-fund
	echo "$lockfile" > "$stamp"
fi
