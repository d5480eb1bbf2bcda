#!/usr/bin/env bash
# Follows README.md's quick start on Linux, as written: the code blocks marked
# `<!-- quickstart: NAME -->` are taken from the README and run — `build` (skipped when
# QUICKSTART_SKIP_BUILD=1, as `./build.sh test` sets after running that same command),
# `pair` (`mcp-bridge install`, with HOME in the test's own directory; `mcp-bridge status` must
# then list every browser as registered), `start` (the bridge, on a free port through MCP_BRIDGE_PORT and in a fresh config directory
# through MCP_BRIDGE_CONFIG_DIR, never the user's own or the shared port 3849), `config` (saved
# where `mcp-bridge config path` says) and `check`. Then: /health answers, /tools lists both
# example servers running, and one tool of each runs through /execute with the bridge's token.
# Needs `uvx` and `npx` on PATH (./build.sh setup puts uv in .tools/venv).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/target/release:$ROOT/node_modules/.bin:$ROOT/.tools/venv/bin:$PATH"
# A port nothing listens on now, chosen by the OS.
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
WORK="$(mktemp -d /tmp/mcp-bridge-quickstart.XXXXXX)"
BRIDGE_PID=""
cleanup() {
  [ -n "$BRIDGE_PID" ] && kill "$BRIDGE_PID" 2>/dev/null && wait "$BRIDGE_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  printf 'quickstart: FAIL %s\n' "$*" >&2
  [ -f "$WORK/bridge.log" ] && sed 's/^/    bridge: /' "$WORK/bridge.log" >&2
  exit 1
}
ok() { printf '  ok  %s\n' "$*"; }

# block NAME: the body of the fenced block after `<!-- quickstart: NAME -->`, unindented.
block() {
  awk -v name="$1" '
    $0 ~ "<!-- quickstart: " name " -->" { armed = 1; next }
    armed && /^ *```/ { if (inside) exit; inside = 1; match($0, /^ */); indent = RLENGTH; next }
    inside { print substr($0, indent + 1) }
  ' README.md
}

for name in build pair start config check; do
  [ -n "$(block "$name")" ] || fail "README.md has no block marked quickstart: $name"
done

export MCP_BRIDGE_CONFIG_DIR="$WORK/config" MCP_BRIDGE_PORT=$PORT
unset MCP_BRIDGE_CONFIG MCP_BRIDGE_TOKEN

echo "quickstart: step 1, build: $(block build)"
if [ "${QUICKSTART_SKIP_BUILD:-0}" = 1 ]; then
  echo "    (already run by ./build.sh test)"
else
  bash -euo pipefail -c "$(block build)"
fi
[ -x target/release/mcp-bridge ] && [ -f dist/chrome/manifest.json ] && [ -f dist/firefox/manifest.json ] \
  || fail "the build left no target/release/mcp-bridge, dist/chrome or dist/firefox"
ok "bridge and both extensions built"

echo "quickstart: step 2, pair: $(block pair)"
# In a home of its own: the test never registers a host in the user's browsers.
paired="$(HOME="$WORK/home" bash -euo pipefail -c "$(block pair)")" || fail "the pair block failed: $paired"
status="$(HOME="$WORK/home" mcp-bridge status)" || true
for browser in Chrome Chromium Edge Brave Firefox; do
  grep -Eq "^  $browser +registered " <<<"$status" || fail "after install, status says: $status"
done
ok "native host registered for Chrome, Chromium, Edge, Brave and Firefox"

echo "quickstart: the example config, saved where \`mcp-bridge config path\` says"
config_file="$(mcp-bridge config path)"
[ "$config_file" = "$MCP_BRIDGE_CONFIG_DIR/mcp-config.json" ] || fail "config path said $config_file"
mkdir -p "$(dirname "$config_file")"
block config >"$config_file"
checked="$(bash -euo pipefail -c "$(block check)")" || fail "the check block failed: $checked"
grep -qx "$config_file" <<<"$checked" || fail "config path printed: $checked"
grep -q "^ok: 2 servers in $config_file" <<<"$checked" || fail "config check printed: $checked"
ok "$(tail -n1 <<<"$checked")"

echo "quickstart: step 2, start the bridge: $(block start)"
bash -c "exec $(block start)" >"$WORK/bridge.log" 2>&1 &
BRIDGE_PID=$!
base="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do
  curl -fsS -o /dev/null "$base/health" 2>/dev/null && break
  kill -0 "$BRIDGE_PID" 2>/dev/null || fail "the bridge exited"
  sleep 0.2
done
health="$(curl -fsS "$base/health")" || fail "/health did not answer"
ok "/health $health"
token="$(sed -n 's/^Token: \([0-9a-f]\{64\}\) .*/\1/p' "$WORK/bridge.log")"
[ -n "$token" ] || fail "the bridge printed no token"
[ "$token" = "$(cat "$MCP_BRIDGE_CONFIG_DIR/token")" ] || fail "the printed token is not the token file's"
ok "the printed token is the one in $MCP_BRIDGE_CONFIG_DIR/token"

auth=(-H "Authorization: Bearer $token")
# uvx may fetch mcp-server-time first; both servers start in the background.
for _ in $(seq 1 300); do
  tools="$(curl -fsS "${auth[@]}" "$base/tools")"
  [ "$(grep -o '"status":"running"' <<<"$tools" | wc -l)" -eq 2 ] && break
  grep -q '"status":"failed"' <<<"$tools" && break
  sleep 0.5
done
for server in time everything; do
  grep -q "\"name\":\"$server\"[^}]*\"status\":\"running\"" <<<"$tools" || fail "/tools: $server is not running: $tools"
done
ok "/tools lists time and everything running"

call() {
  curl -fsS "${auth[@]}" -H 'Content-Type: application/json' -d "$1" "$base/execute"
}
answer="$(call '{"name":"get_current_time","serverName":"time","arguments":{"timezone":"Asia/Tokyo"}}')"
grep -q '"success":true' <<<"$answer" && grep -q 'Asia/Tokyo' <<<"$answer" \
  || fail "time.get_current_time answered $answer"
ok "time.get_current_time → ${answer:0:120}…"
answer="$(call '{"name":"echo","serverName":"everything","arguments":{"message":"quick start"}}')"
grep -q '"success":true' <<<"$answer" && grep -q 'quick start' <<<"$answer" \
  || fail "everything.echo answered $answer"
ok "everything.echo → ${answer:0:120}"

kill "$BRIDGE_PID"; wait "$BRIDGE_PID" 2>/dev/null || true; BRIDGE_PID=""
echo "quickstart: passed"
