#!/usr/bin/env bash
# Checks a release directory (dist/release, or the release workflow's): every file is there
# under its name, the version is the workspace's everywhere (file names, both extension
# manifests in the zips, the source archive's Cargo.toml, `mcp-bridge --version` of the
# binary this machine can run), SHA256SUMS matches the files, the store zip has no `key` and
# the development zip has the one that gives the ID the native host allows, both Chromium
# zips pass the Chrome manifest rules, and the Homebrew formula and Scoop manifest name the
# artifacts with their true checksums.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="$(cd "${1:-$ROOT/dist/release}" && pwd)"
VERSION="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml")"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-bridge-verify.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

passed=0
ok() { printf '  ok  %s\n' "$*"; passed=$((passed + 1)); }
fail() { printf '  FAIL %s\n' "$*" >&2; exit 1; }

echo "verify: $DIR, version $VERSION"
expected=(
  mcp-bridge-linux-x86_64 mcp-bridge-windows-x86_64.exe mcp-bridge-macos-aarch64
  mcp-bridge-macos-x86_64 "mcp-bridge-chrome-$VERSION.zip" "mcp-bridge-chrome-store-$VERSION.zip"
  "mcp-bridge-firefox-$VERSION.zip" "mcp-bridge-source-$VERSION.tar.gz" SHA256SUMS
  mcp-bridge.rb mcp-bridge.json
)
for file in "${expected[@]}"; do [ -f "$DIR/$file" ] || fail "missing: $file"; done
extra=$(cd "$DIR" && ls | grep -vxF -f <(printf '%s\n' "${expected[@]}") || true)
[ -z "$extra" ] || fail "unexpected files: $extra"
ok "all ${#expected[@]} files, named for version $VERSION"

listed=$(awk '{print $2}' "$DIR/SHA256SUMS" | sed 's/^\*//' | sort | tr '\n' ' ')
want=$(printf '%s\n' "${expected[@]}" | grep -vxE 'SHA256SUMS|mcp-bridge\.(rb|json)' | sort | tr '\n' ' ')
[ "$listed" = "$want" ] || fail "SHA256SUMS lists '$listed', not '$want'"
if command -v sha256sum >/dev/null; then
  (cd "$DIR" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match the files"
else
  (cd "$DIR" && shasum -a 256 --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match the files"
fi
ok "SHA256SUMS matches every artifact"

for package in chrome chrome-store firefox; do
  mkdir -p "$WORK/$package"
  unzip -q "$DIR/mcp-bridge-$package-$VERSION.zip" -d "$WORK/$package"
  said=$(node -p "require('$WORK/$package/manifest.json').version")
  [ "$said" = "$VERSION" ] || fail "$package zip: manifest version $said"
done
ok "the three zips' manifests say $VERSION"
node "$ROOT/tests/release/chrome_rules.mjs" "$WORK/chrome" dev "$VERSION"
node "$ROOT/tests/release/chrome_rules.mjs" "$WORK/chrome-store" store "$VERSION"
key=$(node -p "require('$WORK/chrome/manifest.json').key")
[ "$key" = "$(node -p "require('$ROOT/manifest.json').key")" ] || fail "the development zip's key is not manifest.json's"
ok "development zip keeps the key; the store zip has none"
gecko=$(node -p "require('$WORK/firefox/manifest.json').browser_specific_settings.gecko.id")
[ "$gecko" = "mcp-bridge@mcp-bridge.dev" ] || fail "Firefox zip: gecko id $gecko"
ok "Firefox zip: add-on ID $gecko"

tar -xzf "$DIR/mcp-bridge-source-$VERSION.tar.gz" -C "$WORK"
src="$WORK/mcp-bridge-$VERSION"
[ -f "$src/build.sh" ] && [ -f "$src/store/firefox/SOURCE.md" ] || fail "the source archive lacks build.sh or store/firefox/SOURCE.md"
grep -q "^version = \"$VERSION\"" "$src/Cargo.toml" || fail "the source archive's Cargo.toml is not version $VERSION"
ok "source archive: mcp-bridge-$VERSION/ with build.sh and store/firefox/SOURCE.md"

# The binary this machine runs.
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) native=mcp-bridge-linux-x86_64 ;;
  Darwin-arm64) native=mcp-bridge-macos-aarch64 ;;
  Darwin-x86_64) native=mcp-bridge-macos-x86_64 ;;
  *) native="" ;;
esac
if [ -n "$native" ]; then
  chmod +x "$DIR/$native"
  said=$("$DIR/$native" --version)
  [ "$said" = "mcp-bridge $VERSION" ] || fail "$native --version said '$said'"
  ok "$native --version: $said"
fi

node "$ROOT/tests/release/package_managers.mjs" check "$DIR" "$VERSION"
ok "Homebrew formula and Scoop manifest: versions and checksums match the artifacts"
echo "verify: $passed checks passed"
