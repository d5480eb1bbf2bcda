#!/usr/bin/env bash
# Smoke test of the released bridge binaries in DIR (default dist/release): each one is started
# with no config file, so it runs its built-in demo MCP server, in a fresh config directory at
# the platform's own place (XDG_CONFIG_HOME on Linux; %APPDATA% in a fresh wine prefix for the
# Windows .exe). Checked: `config path` names that place, `/health` answers, the token file the
# bridge wrote there is accepted and `/tools` lists the demo server running, `/execute` runs
# `echo`, a wrong token gets 401, and the bridge stops on request; then
# tests/release/pairing_smoke.sh runs install/status/uninstall against the platform's real
# native-messaging locations in a throwaway profile (a temp HOME; for the .exe, the registry
# of the temporary wine prefix). Linux binary natively,
# Windows .exe under wine (skipped, and said so, when wine or mingw is missing unless
# REQUIRE_WINE=1). Each bridge on a free port the system hands out, never the shared 3849. SMOKE_ONLY=linux or
# SMOKE_ONLY=windows tests that binary alone (the other is then not required).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="$(cd "${1:-$ROOT/dist/release}" && pwd)"
WORK="$(mktemp -d /tmp/mcp-bridge-smoke.XXXXXX)"
BRIDGE_PID=""
cleanup() {
  [ -n "$BRIDGE_PID" ] && kill "$BRIDGE_PID" 2>/dev/null || true
  [ -n "${WINEPREFIX:-}" ] && [ -d "$WINEPREFIX" ] && WINEPREFIX="$WINEPREFIX" wineserver -k 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

passed=0
missing=()
ok() { printf '  ok  %s\n' "$*"; passed=$((passed + 1)); }
fail() { printf '  FAIL %s\n' "$*" >&2; [ -f "$WORK/bridge.log" ] && sed 's/^/    log: /' "$WORK/bridge.log" >&2; exit 1; }

# free_port: a port the system just handed out and let go.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for URL SECONDS: until the URL answers.
wait_for() {
  local url="$1" seconds="$2" i
  for ((i = 0; i < seconds * 5; i++)); do
    curl -fsS -o /dev/null "$url" 2>/dev/null && return 0
    [ -n "$BRIDGE_PID" ] && ! kill -0 "$BRIDGE_PID" 2>/dev/null && return 1
    sleep 0.2
  done
  return 1
}

# check NAME PORT TOKEN_FILE: the HTTP checks against a started bridge.
check() {
  local name="$1" port="$2" token_file="$3" base="http://127.0.0.1:$2" token body
  wait_for "$base/health" 90 || fail "$name: /health did not answer on port $port"
  body=$(curl -fsS "$base/health")
  grep -q '"status":"ok"' <<<"$body" || fail "$name: /health said $body"
  ok "$name: /health $body"
  [ -f "$token_file" ] || fail "$name: no token file at $token_file"
  token=$(tr -d '\r\n' <"$token_file")
  [ ${#token} -eq 64 ] || fail "$name: the token in $token_file is not 64 hex digits"
  ok "$name: token file at its platform place ($token_file)"
  # The demo server starts in the background; wait until /tools says it runs.
  local i
  for ((i = 0; i < 150; i++)); do
    body=$(curl -fsS -H "Authorization: Bearer $token" "$base/tools")
    grep -q '"status":"running"' <<<"$body" && break
    sleep 0.2
  done
  grep -q '"name":"demo".*"status":"running"' <<<"$body" || fail "$name: /tools said $body"
  ok "$name: /tools lists the demo server running"
  body=$(curl -fsS -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d '{"name":"echo","arguments":{"text":"smoke test ✓"}}' "$base/execute")
  grep -q '"success":true' <<<"$body" && grep -q 'smoke test ✓' <<<"$body" \
    || fail "$name: /execute echo said $body"
  ok "$name: /execute echo → $body"
  local status
  status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer wrong" "$base/tools")
  [ "$status" = 401 ] || fail "$name: a wrong token got $status, not 401"
  ok "$name: a wrong token gets 401"
}

# stop NAME: SIGTERM (wine turns it into ending the process), then wait for the exit.
stop() {
  local name="$1" i
  kill "$BRIDGE_PID"
  for ((i = 0; i < 50; i++)); do kill -0 "$BRIDGE_PID" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$BRIDGE_PID" 2>/dev/null && fail "$name: still running 10 s after SIGTERM"
  BRIDGE_PID=""
  ok "$name: stopped"
}

ONLY="${SMOKE_ONLY:-}"
case "$ONLY" in "" | linux | windows) ;; *) fail "SMOKE_ONLY is linux or windows, not '$ONLY'" ;; esac

linux="$DIR/mcp-bridge-linux-x86_64"
if [ "$ONLY" = windows ]; then
  :
elif [ -f "$linux" ]; then
  echo "smoke: $linux"
  file "$linux" | grep -Eq 'statically linked|static-pie linked' || fail "linux: $(file -b "$linux") is not static"
  ok "linux: statically linked"
  export XDG_CONFIG_HOME="$WORK/linux-config"
  where=$(env -u MCP_BRIDGE_CONFIG_DIR "$linux" config path)
  [ "$where" = "$XDG_CONFIG_HOME/mcp-bridge/mcp-config.json" ] || fail "linux: config path said $where"
  ok "linux: config path → $where"
  port=$(free_port)
  env -u MCP_BRIDGE_CONFIG_DIR -u MCP_BRIDGE_TOKEN "$linux" --port "$port" >"$WORK/bridge.log" 2>&1 &
  BRIDGE_PID=$!
  check linux "$port" "$XDG_CONFIG_HOME/mcp-bridge/token"
  stop linux
  MCP_BRIDGE_CONFIG_DIR="$WORK/linux-pairing" "$ROOT/tests/release/pairing_smoke.sh" "$linux" \
    || fail "linux: pairing"
  passed=$((passed + 1))
  unset XDG_CONFIG_HOME
else
  missing+=("$linux")
fi

exe="$DIR/mcp-bridge-windows-x86_64.exe"
if [ "$ONLY" = linux ]; then
  :
elif [ ! -f "$exe" ]; then
  missing+=("$exe")
elif ! command -v wine >/dev/null || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  [ "${REQUIRE_WINE:-0}" = 1 ] && fail "windows: wine and x86_64-w64-mingw32-gcc are needed (Debian: apt-get install wine wine64 gcc-mingw-w64-x86-64)"
  echo "smoke: SKIPPED the Windows .exe: wine or mingw missing (Debian: apt-get install wine wine64 gcc-mingw-w64-x86-64)"
else
  echo "smoke: $exe under $(wine --version)"
  mkdir -p "$WORK/win"
  cp "$exe" "$WORK/win/mcp-bridge.exe"
  # Test only: see bcryptprimitives_shim.c. It lives in this temporary directory, never in DIR.
  x86_64-w64-mingw32-gcc -shared -O2 -o "$WORK/win/bcryptprimitives.dll" \
    "$ROOT/tests/release/bcryptprimitives_shim.c" -ladvapi32
  export WINEPREFIX="$WORK/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
  wineboot -i >/dev/null 2>&1 || true
  appdata=$(wine cmd /c 'echo %APPDATA%' 2>/dev/null | tr -d '\r')
  appdata_unix=$(winepath -u "$appdata" 2>/dev/null | tr -d '\r')
  [ -d "$appdata_unix" ] || fail "windows: cannot find %APPDATA% ($appdata) in the wine prefix"
  where=$(cd "$WORK/win" && env -u MCP_BRIDGE_CONFIG_DIR wine ./mcp-bridge.exe config path 2>/dev/null | tr -d '\r')
  [ "$where" = "$appdata\\mcp-bridge\\mcp-config.json" ] || fail "windows: config path said '$where', not under %APPDATA% ($appdata)"
  ok "windows: config path → $where"
  port=$(free_port)
  (cd "$WORK/win" && exec env -u MCP_BRIDGE_CONFIG_DIR -u MCP_BRIDGE_TOKEN wine ./mcp-bridge.exe --port "$port") \
    >"$WORK/bridge.log" 2>&1 &
  BRIDGE_PID=$!
  check windows "$port" "$appdata_unix/mcp-bridge/token"
  stop windows
  env -u MCP_BRIDGE_CONFIG_DIR "$ROOT/tests/release/pairing_smoke.sh" --wine "$WORK/win/mcp-bridge.exe" \
    || fail "windows: pairing under wine"
  passed=$((passed + 1))
fi

echo "smoke: $passed checks passed"
[ ${#missing[@]} -eq 0 ] || fail "not found, so not tested: ${missing[*]}"
