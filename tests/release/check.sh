#!/usr/bin/env bash
# What `./build.sh test` checks of the release machinery, after `./build.sh build`:
#   1. the workflows in .github/workflows: actionlint (with shellcheck on their scripts) and
#      zizmor, both from .tools/lint-venv (`./build.sh setup`);
#   2. one version everywhere: Cargo.toml's, manifest.json's, the three built manifests',
#      `mcp-bridge --version`, the protocol crate's pinned dependency, CHANGELOG.md's notes;
#   3. the zips as shipped (unzipped): the Chrome manifest rules for the development and the
#      store zip, `web-ext lint` for addons.mozilla.org (not --self-hosted) with no warning;
#   4. reproducibility (tests/release/reproducible.sh quick);
#   5. `cargo publish --dry-run` of the bridge and the protocol crate it needs, which packages
#      them as crates.io would and builds the bridge from those packages alone;
#   6. the Homebrew formula and Scoop manifest generator, and that its check catches a
#      changed artifact.
# Prints how long each part took.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
LINT="$ROOT/.tools/lint-venv/bin"
WORK="$(mktemp -d /tmp/mcp-bridge-check.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

passed=0
ok() { printf '  ok  %s\n' "$*"; passed=$((passed + 1)); }
fail() { printf '  FAIL %s\n' "$*" >&2; exit 1; }
timings=()
timed() {
  local name="$1" start; shift
  start=$(date +%s)
  "$@"
  timings+=("$name $(($(date +%s) - start)) s")
}

VERSION="$(bash -c 'source ./build.sh && workspace_version')"
[ -n "$VERSION" ] || fail "no [workspace.package] version in Cargo.toml"

workflows() {
  [ -x "$LINT/actionlint" ] && [ -x "$LINT/zizmor" ] || fail "no actionlint/zizmor in .tools/lint-venv: run ./build.sh setup"
  command -v shellcheck >/dev/null || fail "no shellcheck (Debian: apt-get install shellcheck; ./build.sh setup installs it)"
  "$LINT/actionlint" -shellcheck "$(command -v shellcheck)" || fail "actionlint"
  ok "actionlint ($("$LINT/actionlint" --version | head -1)), with shellcheck: .github/workflows/*.yml"
  "$LINT/zizmor" --offline --min-severity low .github/workflows/ || fail "zizmor"
  ok "zizmor ($("$LINT/zizmor" --version)): no finding"
}

versions() {
  local said where
  said=$(node -p "require('./manifest.json').version")
  [ "$said" = "$VERSION" ] || fail "manifest.json says $said, Cargo.toml $VERSION"
  for where in chrome chrome-store firefox; do
    said=$(node -p "require('./dist/$where/manifest.json').version")
    [ "$said" = "$VERSION" ] || fail "dist/$where/manifest.json says $said, Cargo.toml $VERSION"
  done
  said=$(target/release/mcp-bridge --version)
  [ "$said" = "mcp-bridge $VERSION" ] || fail "mcp-bridge --version says '$said'"
  grep -qF "mcp-bridge-protocol = { path = \"protocol\", version = \"=$VERSION\" }" Cargo.toml \
    || fail "Cargo.toml's mcp-bridge-protocol dependency does not pin =$VERSION"
  tests/release/release_notes.sh "$VERSION" >/dev/null || fail "no CHANGELOG.md notes for $VERSION"
  ok "version $VERSION: Cargo.toml, manifest.json, dist/{chrome,chrome-store,firefox}, mcp-bridge --version, the protocol pin, CHANGELOG.md"
}

zips() {
  local package
  for package in chrome chrome-store firefox; do
    mkdir -p "$WORK/$package"
    unzip -q "dist/mcp-bridge-$package.zip" -d "$WORK/$package"
    diff -r "$WORK/$package" "dist/$package" >/dev/null || fail "dist/mcp-bridge-$package.zip is not dist/$package"
  done
  node tests/release/chrome_rules.mjs "$WORK/chrome" dev "$VERSION"
  node tests/release/chrome_rules.mjs "$WORK/chrome-store" store "$VERSION"
  # The rules can fail: the development build, taken for a store upload, is refused.
  if node tests/release/chrome_rules.mjs "$WORK/chrome" store "$VERSION" >"$WORK/rules.txt" 2>&1 \
    || ! grep -q 'carries `key`' "$WORK/rules.txt"; then
    fail "chrome_rules passed the development zip as a store upload: $(cat "$WORK/rules.txt")"
  fi
  ok "Chrome manifest rules: development zip (with key) and store zip (without); a key in a store upload is refused"
  web-ext lint --source-dir "$WORK/firefox" --warnings-as-errors --output text >"$WORK/web-ext.txt" 2>&1 \
    || { cat "$WORK/web-ext.txt" >&2; fail "web-ext lint (for addons.mozilla.org) of mcp-bridge-firefox.zip"; }
  grep -E '^(errors|notices|warnings) ' "$WORK/web-ext.txt" | sed 's/^/      /'
  ok "web-ext lint --warnings-as-errors (for addons.mozilla.org): mcp-bridge-firefox.zip"
}

publish() {
  # Cargo verifies the bridge against the protocol crate it just packaged, as if it came
  # from a registry: the unpacked copy and the compiled one of an earlier run with the same
  # version are taken as they are (a registry's crates never change). Ours do: drop both.
  rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/mcp-bridge-protocol-*
  cargo clean --quiet -p mcp-bridge-protocol
  cargo publish --dry-run --locked --allow-dirty -p mcp-bridge-protocol -p mcp-bridge \
    >"$WORK/publish.txt" 2>&1 || { tail -40 "$WORK/publish.txt" >&2; fail "cargo publish --dry-run"; }
  grep -E '^\s*(Packaged|Verifying|Uploading|warning: aborting)' "$WORK/publish.txt" | sed 's/^ */      /'
  ok "cargo publish --dry-run: mcp-bridge-protocol and mcp-bridge package and build from their packages"
}

package_managers() {
  # The generator's own test, on stand-in bytes: the real run is in `./build.sh release` and
  # the release workflow, on the real artifacts (tests/release/verify.sh).
  local dir="$WORK/release" name
  mkdir -p "$dir"
  for name in mcp-bridge-linux-x86_64 mcp-bridge-windows-x86_64.exe mcp-bridge-macos-aarch64 \
    mcp-bridge-macos-x86_64; do
    printf 'stand-in for %s\n' "$name" >"$dir/$name"
  done
  (source ./build.sh && MCP_BRIDGE_REPOSITORY=example/mcp-bridge release_checksums "$dir") >/dev/null
  node tests/release/package_managers.mjs check "$dir" "$VERSION" >/dev/null
  grep -q "releases/download/v$VERSION/mcp-bridge-macos-aarch64" "$dir/mcp-bridge.rb" || fail "formula urls"
  printf 'changed\n' >>"$dir/mcp-bridge-macos-x86_64"
  if node tests/release/package_managers.mjs check "$dir" "$VERSION" >"$WORK/pm.txt" 2>&1; then
    fail "the check passed a changed artifact"
  fi
  grep -q "mcp-bridge-macos-x86_64 has SHA-256" "$WORK/pm.txt" || fail "the check said: $(cat "$WORK/pm.txt")"
  ok "Homebrew formula and Scoop manifest from SHA256SUMS; a changed artifact is caught"
}

echo "release checks (version $VERSION)"
timed workflows workflows
timed versions versions
timed zips zips
timed reproducible tests/release/reproducible.sh quick
timed publish publish
timed package-managers package_managers
echo "release checks took: ${timings[*]}"
echo "release checks: $passed passed, 0 failed"
