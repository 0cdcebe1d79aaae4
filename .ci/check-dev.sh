#!/usr/bin/env bash
# Runs `npm run dev` in the current clone exactly as a user types it, and checks what .github/CONTRIBUTING.md
# promises: it gets ready on a fresh clone (installing what is missing), the editor answers, and the
# published demo echo bot answers a message from the demo user through the emulator, with its
# buttons, and a click on one. Then it stops it as Ctrl-C does (SIGINT to its process group) and
# checks that it left nothing listening.
#
# `npm run dev` is a long-running server, so it runs in the background in a process group of its
# own. Free ports and a throw-away state folder (.github/CONTRIBUTING.md, "npm run dev": SERVICE_BOT_DEV_*), so it
# never meets another `npm run dev` on the same machine.
set -euo pipefail

say() { echo "check-dev: $(date +%H:%M:%S) $*"; }
fail() {
	say "FAILED: $*"
	[ -n "${out:-}" ] && [ -f "$out" ] && { echo "---- last output of npm run dev:"; tail -n 40 "$out"; }
	exit 1
}
free_port() {
	node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}
# JSON field of stdin: `json '.demo.userId'`-like, with a JavaScript expression over `v`.
json() { node -e "let t = ''; process.stdin.on('data', (c) => (t += c)).on('end', () => { const v = JSON.parse(t); console.log($1); });"; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

n8n_port="$(free_port)"
emulator_port="$(free_port)"
model_port="$(free_port)"
state="$(mktemp -d)"
out="$state/npm-run-dev.out"
export SERVICE_BOT_DEV_N8N_PORT="$n8n_port" SERVICE_BOT_DEV_EMULATOR_PORT="$emulator_port" SERVICE_BOT_DEV_MODEL_PORT="$model_port" SERVICE_BOT_DEV_DIR="$state"
editor="http://127.0.0.1:$n8n_port"
emulator="http://127.0.0.1:$emulator_port"

say "npm run dev (n8n on $n8n_port, emulator on $emulator_port, state in $state)"
: >"$out"
setsid npm run dev >"$out" 2>&1 < /dev/null &
dev=$!
# Whatever happens below, nothing this script started outlives it.
cleanup() {
	if kill -0 "$dev" 2>/dev/null; then kill -TERM -- "-$dev" 2>/dev/null || true; wait "$dev" 2>/dev/null || true; fi
	rm -rf "$state"
}
trap cleanup EXIT

# A fresh clone installs the dependencies (~2 min) and, on a new machine, n8n (5–15 min) first.
ready_limit=$((SECONDS + 45 * 60))
until grep -q 'Service Bot dev environment is running' "$out"; do
	kill -0 "$dev" 2>/dev/null || fail "npm run dev exited before it was ready"
	[ "$SECONDS" -lt "$ready_limit" ] || fail "npm run dev was not ready after 45 minutes"
	sleep 2
done
say "ready after ${SECONDS} s"

curl -fsS "$editor/healthz/readiness" >/dev/null || fail "the editor at $editor is not ready"
# Read the whole page first: `curl | grep -q` fails under pipefail when grep stops reading at its match.
page="$(curl -fsS "$editor/")" || fail "the editor at $editor/ did not answer"
grep -q '<title>n8n' <<<"$page" || fail "$editor/ is not n8n's editor page"
say "the editor answers at $editor"

demo="$(curl -fsS "$emulator/_emulator/demo")"
chat="$(json v.privateChatId <<<"$demo")"
user="$(json v.userId <<<"$demo")"
history() { curl -fsS "$emulator/_emulator/chats/$chat/history"; }
# Waits until the chat history satisfies a JavaScript condition over `v` (the StoredMessage array).
await_history() {
	local limit=$((SECONDS + 90))
	until [ "$(history | json "($1) ? 'yes' : 'no'")" = yes ]; do
		[ "$SECONDS" -lt "$limit" ] || fail "$2 (history: $(history))"
		sleep 1
	done
}
text="ci says hello $RANDOM"
curl -fsS -H 'content-type: application/json' -d "{\"chatId\":\"$chat\",\"userId\":\"$user\",\"text\":\"$text\"}" \
	"$emulator/_emulator/messages" >/dev/null
await_history "v.some((m) => m.from.is_bot && m.text === 'You said: $text' && m.reply_markup?.inline_keyboard?.[0]?.map((b) => b.callback_data).join() === 'nice,meh')" \
	"the echo bot did not answer '$text' with its two buttons"
answer="$(history | json "v.find((m) => m.text === 'You said: $text').message_id")"
say "the echo bot answered '$text' with its buttons (message $answer)"
curl -fsS -H 'content-type: application/json' -d "{\"chatId\":\"$chat\",\"userId\":\"$user\",\"messageId\":$answer,\"data\":\"nice\"}" \
	"$emulator/_emulator/clicks" >/dev/null
await_history "v.some((m) => m.message_id === $answer && m.text === 'You said: $text\nYou chose: nice')" \
	"the echo bot did not show the click on 'Nice'"
say "the echo bot showed the click"

say "stopping npm run dev as Ctrl-C does"
kill -INT -- "-$dev"
stop_limit=$((SECONDS + 60))
while kill -0 "$dev" 2>/dev/null; do
	[ "$SECONDS" -lt "$stop_limit" ] || fail "npm run dev still runs 60 s after Ctrl-C"
	sleep 1
done
for port in "$n8n_port" "$emulator_port" "$model_port"; do
	if port_open "$port"; then fail "port $port still answers after npm run dev stopped"; fi
done
say "stopped; n8n, the emulator and the stand-in chat model are gone"
