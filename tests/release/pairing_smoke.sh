#!/usr/bin/env bash
# `mcp-bridge install`, `status`, `install --extension-id`, `uninstall` against the real
# native-messaging locations of the platform the binary runs on, in a throwaway profile:
#
#   tests/release/pairing_smoke.sh BINARY          Linux or macOS: HOME is a temp folder, so
#       the manifests land in its ~/.config/... or ~/Library/Application Support/...; on
#       Windows (Git Bash on a CI runner, itself thrown away after the job) the manifests
#       land in the runner's profile and the keys under HKEY_CURRENT_USER, read back with
#       `reg query` — the bridge takes its profile from Windows, not from HOME.
#   tests/release/pairing_smoke.sh --wine BINARY   the Windows .exe under wine in the
#       prefix $WINEPREFIX (the caller makes a temporary one): the same, with wine's
#       registry.
#
# Checked: each of the five browsers' manifests is where that browser reads it (on Windows:
# the registry key names it), names this binary and allows only MCP Bridge; `status` says
# registered; an added ID is kept by a later install; uninstall removes files and keys.
set -euo pipefail

WINE=0
if [ "${1:-}" = --wine ]; then WINE=1; shift; fi
BIN="${1:?usage: pairing_smoke.sh [--wine] BINARY}"
DEV_ORIGIN="chrome-extension://jdbdlgonhioplfeamjjapnhojcagahnf/"
ADDED_ID="abcdefghijklmnopabcdefghijklmnop"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-bridge-pairing.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

passed=0
ok() { printf '  ok  %s\n' "$*"; passed=$((passed + 1)); }
fail() { printf '  FAIL %s\n' "$*" >&2; exit 1; }

case "$(uname -s)" in
  Darwin) OS=macos ;;
  Linux) OS=linux ;;
  MINGW* | MSYS* | CYGWIN*) OS=windows ;;
  *) fail "unknown system $(uname -s)" ;;
esac
[ $WINE = 1 ] && OS=wine

bridge() {
  case "$OS" in
    wine) (cd "$(dirname "$BIN")" && WINEDEBUG=-all wine "./$(basename "$BIN")" "$@" 2>&1 | tr -d '\r') ;;
    windows) "$BIN" "$@" 2>&1 | tr -d '\r' ;;
    # The config directory (status reads the token there) is in the throwaway profile too.
    *) HOME="$WORK/home" MCP_BRIDGE_CONFIG_DIR="$WORK/config" "$BIN" "$@" 2>&1 ;;
  esac
}

# The Windows registry's default value of a key under HKCU, or nothing.
reg_value() {
  local out
  case "$OS" in
    wine) out=$(WINEDEBUG=-all wine reg query "HKCU\\$1" /ve 2>/dev/null | tr -d '\r') || return 0 ;;
    # MSYS would rewrite /ve into a path.
    windows) out=$(MSYS2_ARG_CONV_EXCL='*' reg query "HKCU\\$1" /ve 2>/dev/null | tr -d '\r') || return 0 ;;
  esac
  sed -n 's/.*REG_SZ[[:space:]]*//p' <<<"$out" | head -1
}

to_unix() {
  case "$OS" in
    wine) winepath -u "$1" 2>/dev/null | tr -d '\r' ;;
    windows) cygpath -u "$1" ;;
    *) printf '%s' "$1" ;;
  esac
}

# The place each browser reads, per platform (Windows: the registry key).
expected() {
  local browser="$1" home="$WORK/home"
  case "$OS:$browser" in
    linux:Chrome) echo "$home/.config/google-chrome/NativeMessagingHosts/dev.mcp_bridge.host.json" ;;
    linux:Chromium) echo "$home/.config/chromium/NativeMessagingHosts/dev.mcp_bridge.host.json" ;;
    linux:Edge) echo "$home/.config/microsoft-edge/NativeMessagingHosts/dev.mcp_bridge.host.json" ;;
    linux:Brave) echo "$home/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts/dev.mcp_bridge.host.json" ;;
    linux:Firefox) echo "$home/.mozilla/native-messaging-hosts/dev.mcp_bridge.host.json" ;;
    macos:Chrome) echo "$home/Library/Application Support/Google/Chrome/NativeMessagingHosts/dev.mcp_bridge.host.json" ;;
    macos:Chromium) echo "$home/Library/Application Support/Chromium/NativeMessagingHosts/dev.mcp_bridge.host.json" ;;
    macos:Edge) echo "$home/Library/Application Support/Microsoft Edge/NativeMessagingHosts/dev.mcp_bridge.host.json" ;;
    macos:Brave) echo "$home/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts/dev.mcp_bridge.host.json" ;;
    macos:Firefox) echo "$home/Library/Application Support/Mozilla/NativeMessagingHosts/dev.mcp_bridge.host.json" ;;
    *:Chrome) echo 'Software\Google\Chrome\NativeMessagingHosts\dev.mcp_bridge.host' ;;
    *:Chromium) echo 'Software\Chromium\NativeMessagingHosts\dev.mcp_bridge.host' ;;
    *:Edge) echo 'Software\Microsoft\Edge\NativeMessagingHosts\dev.mcp_bridge.host' ;;
    *:Brave) echo 'Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\dev.mcp_bridge.host' ;;
    *:Firefox) echo 'Software\Mozilla\NativeMessagingHosts\dev.mcp_bridge.host' ;;
  esac
}

# The manifest file each browser would read now (empty when none is registered).
manifest_of() {
  local browser="$1" where
  where="$(expected "$browser")"
  case "$OS" in
    wine | windows)
      local value; value="$(reg_value "$where")"
      [ -n "$value" ] && to_unix "$value"
      ;;
    *) [ -f "$where" ] && printf '%s' "$where" ;;
  esac
  return 0
}

json_field() { node -e 'const m=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(JSON.stringify(m[process.argv[2]]))' "$1" "$2"; }

BROWSERS=(Chrome Chromium Edge Brave Firefox)
echo "pairing: $BIN on $OS"
mkdir -p "$WORK/home"

out=$(bridge install) || fail "install failed: $out"
ok "install: $(head -1 <<<"$out")"
for browser in "${BROWSERS[@]}"; do
  file="$(manifest_of "$browser")"
  [ -n "$file" ] && [ -f "$file" ] || fail "$browser: no manifest where it looks ($(expected "$browser"))"
  [ "$(json_field "$file" name)" = '"dev.mcp_bridge.host"' ] || fail "$browser: $file names $(json_field "$file" name)"
  if [ "$browser" = Firefox ]; then
    [ "$(json_field "$file" allowed_extensions)" = '["mcp-bridge@mcp-bridge.dev"]' ] \
      || fail "Firefox: allowed_extensions $(json_field "$file" allowed_extensions)"
  else
    [ "$(json_field "$file" allowed_origins)" = "[\"$DEV_ORIGIN\"]" ] \
      || fail "$browser: allowed_origins $(json_field "$file" allowed_origins)"
  fi
  path=$(json_field "$file" path | sed 's/^"//; s/"$//; s/\\\\/\\/g')
  case "$path" in '\\?\'*) fail "$browser: the manifest runs the verbatim path $path, not a plain one" ;; esac
  [ "$(basename "$(to_unix "$path")")" = "$(basename "$BIN")" ] || fail "$browser: the manifest runs $path, not $BIN"
  if [ "$(expected "$browser")" = "$file" ]; then ok "$browser: $file"; else ok "$browser: HKCU\\$(expected "$browser") → $file"; fi
done

status=$(bridge status) || fail "status failed: $status"
[ "$(grep -c ' registered ' <<<"$status")" = 5 ] || fail "status: $status"
ok "status: registered for all five browsers"

out=$(bridge install --extension-id "$ADDED_ID") || fail "install --extension-id failed: $out"
out=$(bridge install) || fail "a second install failed: $out"
file="$(manifest_of Chrome)"
[ "$(json_field "$file" allowed_origins)" = "[\"$DEV_ORIGIN\",\"chrome-extension://$ADDED_ID/\"]" ] \
  || fail "the added ID was not kept: $(json_field "$file" allowed_origins)"
ok "install --extension-id: kept by a later install"

out=$(bridge install --extension-id not-an-id) && fail "a malformed ID was accepted: $out"
grep -q "is not an extension ID" <<<"$out" || fail "a malformed ID got: $out"
ok "a malformed ID is refused: $(grep -m1 'is not an extension ID' <<<"$out")"

files=()
for browser in "${BROWSERS[@]}"; do files+=("$(manifest_of "$browser")"); done
out=$(bridge uninstall) || fail "uninstall failed: $out"
for i in "${!BROWSERS[@]}"; do
  [ -e "${files[$i]}" ] && fail "${BROWSERS[$i]}: ${files[$i]} is still there"
  [ -z "$(manifest_of "${BROWSERS[$i]}")" ] || fail "${BROWSERS[$i]}: still registered"
done
ok "uninstall: every manifest$([ "$OS" = wine ] || [ "$OS" = windows ] && echo ' and registry key') removed"
status=$(bridge status) || fail "status failed: $status"
[ "$(grep -c 'not registered' <<<"$status")" = 5 ] || fail "status after uninstall: $status"
ok "status: not registered anywhere"
echo "pairing: $passed checks passed"
