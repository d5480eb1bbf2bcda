#!/usr/bin/env bash
# MCP Bridge — one entry point for setting up, building, running and testing.
#
#   ./build.sh setup   install the toolchain (idempotent; every other command runs it first)
#   ./build.sh [build] core → wasm, bridge in release, dist/chrome, dist/firefox and zips
#   ./build.sh run     build, then start the bridge in the foreground
#   ./build.sh test    every test: native, wasm in Chromium and Firefox, end to end, lint
#   ./build.sh bench   the benchmarks (print figures)
#   ./build.sh demo    the whole loop in a browser window, against a local demo chat page
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"

# Versions in one place. wasm-bindgen-cli must equal the `=` pin in Cargo.toml.
WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml)"
WASM_PACK_VERSION="0.15.1"
GECKODRIVER_VERSION="0.37.1"
TOOLS="$ROOT/.tools"
VENV="$TOOLS/venv"
DIST="$ROOT/dist"

export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$VENV/bin:$PATH"

step() { printf '\n\033[1;34m==> %s\033[0m\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------
# setup
# ---------------------------------------------------------------------------------------

apt_updated=0
apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && { note "apt: $* already installed"; return; }
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if [ $apt_updated -eq 0 ]; then $sudo apt-get update -qq; apt_updated=1; fi
  note "apt: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# cargo_install CRATE VERSION BINARY [extra args]: skips when BINARY reports VERSION.
cargo_install() {
  local crate="$1" version="$2" bin="$3"; shift 3
  if command -v "$bin" >/dev/null && "$bin" --version 2>/dev/null | grep -q " v\?$version\b"; then
    note "$crate $version already installed"
    return
  fi
  note "cargo install $crate $version"
  cargo install "$crate" --version "$version" "$@"
}

setup() {
  step "setup: Rust wasm target"
  rustup target list --installed | grep -q '^wasm32-unknown-unknown$' \
    || rustup target add wasm32-unknown-unknown

  step "setup: browsers and drivers (Debian chromium, chromium-driver, firefox-esr)"
  apt_install chromium chromium-driver firefox-esr python3-venv zip

  step "setup: cargo tools"
  # Without --locked, as the wasm-bindgen docs ask; the version must match Cargo.toml's pin.
  cargo_install wasm-bindgen-cli "$WASM_BINDGEN_VERSION" wasm-bindgen
  cargo_install wasm-pack "$WASM_PACK_VERSION" wasm-pack
  cargo_install geckodriver "$GECKODRIVER_VERSION" geckodriver

  step "setup: npm tools (binaryen's wasm-opt, web-ext, esbuild, editor libraries, MCP servers)"
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  else
    note "node_modules up to date"
  fi

  step "setup: Python MCP servers (tests/requirements.txt)"
  if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV"; fi
  if ! cmp -s tests/requirements.txt "$VENV/.installed" 2>/dev/null; then
    "$VENV/bin/pip" install -q -r tests/requirements.txt
    cp tests/requirements.txt "$VENV/.installed"
  else
    note "Python packages up to date"
  fi
}

# ---------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------

# Writes the manifest for one browser. Chromium wants `background.service_worker`, Firefox
# `background.scripts`; each warns about the other's key, so each gets only its own. `key`
# (the public key that fixes the Chromium extension's ID, which the native host allows) is
# Chromium's; Firefox has the fixed gecko ID instead.
write_manifest() {
  local browser="$1" out="$2"
  node - "$browser" "$out" <<'JS'
const fs = require('fs');
const [browser, out] = process.argv.slice(2);
const m = JSON.parse(fs.readFileSync('manifest.json', 'utf8'));
if (browser === 'chrome') {
  delete m.background.scripts;
  delete m.browser_specific_settings;
} else {
  delete m.background.service_worker;
  delete m.key;
}
fs.writeFileSync(out, JSON.stringify(m, null, 2) + '\n');
JS
}

assemble() {
  local browser="$1" dir="$2"
  rm -rf "$dir"; mkdir -p "$dir/core" "$dir/page-core" "$dir/options" "$dir/sites"
  cp extension/background.js extension/contract.js extension/content.js "$dir/"
  cp -r extension/icons extension/_locales "$dir/"
  cp extension/sites/*.json "$dir/sites/" 2>/dev/null || true
  cp options/options.html options/options.js options/options.css "$dir/options/"
  cp -r extension/popup "$dir/"
  cp target/wasm-out/mcp_bridge_core.js target/wasm-out/mcp_bridge_core_bg.wasm "$dir/core/"
  cp target/wasm-out-pages/mcp_bridge_core.js target/wasm-out-pages/mcp_bridge_core_bg.wasm \
    "$dir/page-core/"
  write_manifest "$browser" "$dir/manifest.json"
}

# One wasm build of the core: `$1` is the feature (`worker`: the background's chat loop;
# `pages`: the extension pages' backend), `$2` the output folder.
build_core() {
  local feature="$1" out="$2"
  step "build: core ($feature) → wasm (profile wasm-release: size first)"
  cargo build --profile wasm-release --target wasm32-unknown-unknown -p mcp-bridge-core \
    --no-default-features --features "$feature"
  rm -rf "$out"
  wasm-bindgen --target web --no-typescript --out-dir "$out" \
    target/wasm32-unknown-unknown/wasm-release/mcp_bridge_core.wasm

  step "build: wasm-opt -Oz (npm binaryen)"
  # The features rustc enables by default for wasm32-unknown-unknown. Flattening and
  # re-looping the control flow between two -Oz rounds lets binaryen rebuild rustc's
  # async state machines more compactly: 2.4 KB less gzip than -Oz alone.
  # `-ocimfs 0`: no inlining of functions just because they have one caller (binaryen's
  # default has no size limit): it merged large handlers into the function that polls
  # every message's future. V8 compiles wasm lazily, each function at its first call, so a
  # restarted worker's first message compiled all of it. Without: ~2 ms less on that first
  # call, 12.6 KB less gzip.
  wasm-opt --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    -ocimfs 0 -Oz --flatten --rereloop -Oz -Oz \
    "$out/mcp_bridge_core_bg.wasm" -o "$out/mcp_bridge_core_bg.wasm"

  # wasm-bindgen's generated glue is machine-written and never read by hand: ship it
  # minified (1.9 KB less gzip). Our own JS stays as written.
  esbuild --minify --format=esm --log-level=warning --allow-overwrite \
    --outfile="$out/mcp_bridge_core.js" "$out/mcp_bridge_core.js"
}

build() {
  # The worker's last, so target/…/mcp_bridge_core.wasm is its build (the size bench reads it).
  build_core pages target/wasm-out-pages
  build_core worker target/wasm-out

  step "build: bridge server (release)"
  cargo build --release -p mcp-bridge

  step "build: assemble dist/"
  assemble chrome "$DIST/chrome"
  assemble firefox "$DIST/firefox"
  rm -f "$DIST"/mcp-bridge-*.zip
  (cd "$DIST/chrome" && zip -qr "$DIST/mcp-bridge-chrome.zip" .)
  (cd "$DIST/firefox" && zip -qr "$DIST/mcp-bridge-firefox.zip" .)
  note "dist/chrome, dist/firefox, dist/mcp-bridge-chrome.zip, dist/mcp-bridge-firefox.zip"

  # The core's budget counts what the worker loads: its wasm, wasm-bindgen's glue,
  # background.js and the contract it imports. The content script runs in the chat page and
  # the pages' core in the options page: each is counted on its own.
  local wasm_gz glue_gz page_gz pages_gz
  wasm_gz=$(gzip -9c "$DIST/chrome/core/mcp_bridge_core_bg.wasm" | wc -c)
  glue_gz=$(cat "$DIST/chrome/core/mcp_bridge_core.js" "$DIST/chrome/background.js" \
    "$DIST/chrome/contract.js" | gzip -9c | wc -c)
  page_gz=$(cat "$DIST/chrome/contract.js" "$DIST/chrome/content.js" | gzip -9c | wc -c)
  pages_gz=$(cat "$DIST/chrome/page-core/mcp_bridge_core_bg.wasm" | gzip -9c | wc -c)
  step "size (gzip -9): worker core wasm ${wasm_gz} B + glue ${glue_gz} B = $((wasm_gz + glue_gz)) B (budget 204800 B); content script ${page_gz} B; pages' core wasm ${pages_gz} B"
}

# ---------------------------------------------------------------------------------------
# run / test / bench
# ---------------------------------------------------------------------------------------

run() {
  build
  cat <<EOF

  The bridge is starting on http://127.0.0.1:3849 (Ctrl+C stops it and its MCP servers).
  Its access token is printed below; paste it into the extension's options page.

  Load the extension unpacked:
    Chrome/Chromium: chrome://extensions → Developer mode → Load unpacked → $DIST/chrome
    Firefox:         about:debugging#/runtime/this-firefox → Load Temporary Add-on…
                     → $DIST/firefox/manifest.json
  Then open the extension's options page and press "Test connection".

EOF
  exec "$ROOT/target/release/mcp-bridge" "$@"
}

test_all() {
  build

  step "test: formatting and lints"
  cargo fmt --all -- --check
  cargo clippy --workspace --all-targets -- -D warnings

  step "test: native (cargo test --workspace)"
  cargo test --workspace

  step "test: core in real browsers (wasm-pack test --headless)"
  local canned_pid
  node tests/support/canned_server.mjs & canned_pid=$!
  trap 'kill $canned_pid 2>/dev/null || true' RETURN
  CHROMEDRIVER=/usr/bin/chromedriver wasm-pack test --headless --chrome
  GECKODRIVER="$(command -v geckodriver)" wasm-pack test --headless --firefox
  kill $canned_pid 2>/dev/null || true

  step "test: end to end, extension in Chromium and Firefox"
  node --test --test-concurrency=1 tests/e2e/

  step "test: web-ext lint dist/firefox"
  web-ext lint --source-dir "$DIST/firefox" --self-hosted --output text
}

bench() {
  build
  step "bench: what each crate adds to the core's wasm"
  node tests/support/wasm_size.mjs target/wasm32-unknown-unknown/wasm-release/mcp_bridge_core.wasm

  step "bench: core pipeline (native)"
  cargo run --release -p mcp-bridge-core --example bench_pipeline

  step "bench: the chat loop in Chromium (latency, main-thread cost, float)"
  node tests/e2e/bench_chat.mjs

  step "bench: the background's cold start in Chromium, against a plain-JS worker"
  node tests/e2e/bench_coldstart.mjs

  step "bench: bridge vs direct rmcp vs mcpo (pinned in tests/bench-requirements.txt)"
  if [ ! -x "$TOOLS/mcpo-venv/bin/python" ]; then python3 -m venv "$TOOLS/mcpo-venv"; fi
  if ! cmp -s tests/bench-requirements.txt "$TOOLS/mcpo-venv/.installed" 2>/dev/null; then
    "$TOOLS/mcpo-venv/bin/pip" install -q -r tests/bench-requirements.txt
    cp tests/bench-requirements.txt "$TOOLS/mcpo-venv/.installed"
  fi
  MCPO="$TOOLS/mcpo-venv/bin/mcpo" cargo bench -p mcp-bridge --bench bridge
}

demo() {
  build
  step "demo: bridge + demo MCP server + Chromium with the extension on a local chat page"
  node tests/e2e/demo.mjs "$@"
}

# Sourcing the script (for its functions) runs nothing.
[[ "${BASH_SOURCE[0]}" != "$0" ]] && return 0

cmd="${1:-build}"; shift || true
case "$cmd" in
  setup) setup ;;
  build) setup; build ;;
  run) setup; run "$@" ;;
  test) setup; test_all ;;
  bench) setup; bench ;;
  demo) setup; demo "$@" ;;
  *) die "unknown command '$cmd' (setup | build | run | test | bench | demo)" ;;
esac
