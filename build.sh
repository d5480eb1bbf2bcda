#!/usr/bin/env bash
# MCP Bridge — one entry point for setting up, building, running and testing.
#
#   ./build.sh setup   install everything the tests need (idempotent; test, bench, demo run it)
#   ./build.sh [build] core → wasm, bridge in release, dist/chrome, dist/firefox and zips
#                      (installs only the build toolchain; see setup_build)
#   ./build.sh run     build, then start the bridge in the foreground
#   ./build.sh release dist/release: the extension zips (development, Chrome Web Store,
#                      Firefox), the source archive, mcp-bridge for Linux, Windows and macOS,
#                      SHA256SUMS, Homebrew formula, Scoop manifest; then their checks
#   ./build.sh test    every test: native, the README's quick start, wasm in Chromium and
#                      Firefox, end to end, lint
#   ./build.sh bench   the benchmarks (print figures)
#   ./build.sh store-screenshots  store/screenshots/: the store listings' pictures, taken of
#                      the real extension in Chromium
#   ./build.sh docs-images  docs/float-error.png, docs/options.png and docs/app-view.png, the same way
#   ./build.sh demo    the whole loop in a browser window, against a local demo chat page
#   ./build.sh sign-sites LIST KEYFILE [OUT]
#                      sign a site list for subscribers with the Ed25519 key in KEYFILE
#                      (kept outside the repository; made when missing); prints the
#                      verifying key to build with (MCP_BRIDGE_SITE_LIST_KEY)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CALLER_DIR="$PWD" # where the user's paths (sign-sites LIST KEYFILE) are relative to
cd "$ROOT"

# Versions in one place. wasm-bindgen-cli must equal the `=` pin in Cargo.toml.
WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml)"
WASM_PACK_VERSION="0.15.1"
GECKODRIVER_VERSION="0.37.1"
# The Node the MCP conformance suite runs on (it imports `fs.globSync`, which Node 20 lacks):
# npm's `node` package, which installs the official binary for this platform from the npm
# registry. Only the suite runs on it; everything else uses the `node` on PATH (20 or newer).
CONFORMANCE_NODE_VERSION="22.23.3"
TOOLS="$ROOT/.tools"
VENV="$TOOLS/venv"
DIST="$ROOT/dist"

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$ROOT/node_modules/.bin:$VENV/bin:$PATH"

step() { printf '\n\033[1;34m==> %s\033[0m\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------
# setup
#
# Two levels. `build` and `run` need only the build toolchain: the wasm32 target,
# wasm-bindgen-cli at the pinned version, and binaryen's wasm-opt and esbuild from npm (the
# `dependencies` of package.json; `npm ci --omit=dev`). They check for the programs they
# cannot install themselves (cargo, rustup, node, npm, zip) and name each missing one with
# how to get it; they never call apt-get, so they work on macOS and on Linux without apt.
# `test`, `bench`, `demo` and `setup` need everything else too — browsers and drivers,
# wasm-pack, geckodriver, web-ext, the fixture pages' editor libraries, the MCP servers —
# and install it themselves (apt-get on Debian, for CI on a fresh machine), skipping what
# is present.
# ---------------------------------------------------------------------------------------

# Where each program the build cannot install itself comes from.
how_to_get() {
  case "$1" in
    cargo | rustup) echo "Rust through rustup: https://rustup.rs (curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh)" ;;
    node | npm) echo "Node.js 20 or newer with npm (the conformance suite's Node 22 comes from npm in ./build.sh setup): https://nodejs.org (macOS: brew install node; Debian/Ubuntu: apt-get install nodejs npm)" ;;
    zip) echo "zip (macOS: preinstalled; Debian/Ubuntu: apt-get install zip; Fedora: dnf install zip)" ;;
    python3) echo "Python 3 with venv (Debian/Ubuntu: apt-get install python3-venv; macOS: brew install python)" ;;
    *) echo "$1" ;;
  esac
}

# require PROGRAM...: dies naming every missing program and where to get it.
require() {
  local missing=() program
  for program in "$@"; do command -v "$program" >/dev/null || missing+=("$program"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  printf '\033[1;31merror:\033[0m missing: %s\n' "${missing[*]}" >&2
  for program in "${missing[@]}"; do printf '  %-6s %s\n' "$program" "$(how_to_get "$program")" >&2; done
  exit 1
}

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

# npm_install build|all: `build` is package.json's `dependencies` (binaryen, esbuild), `all`
# adds the devDependencies. Skips when node_modules already holds them for this lock file.
npm_install() {
  local want="$1" marker=node_modules/binaryen
  [ "$want" = all ] && marker=node_modules/web-ext
  if [ -d "$marker" ] && [ -f node_modules/.package-lock.json ] \
    && [ ! package-lock.json -nt node_modules/.package-lock.json ]; then
    note "node_modules up to date ($want)"
    return
  fi
  if [ "$want" = all ]; then
    npm ci --no-audit --no-fund
  else
    npm ci --omit=dev --no-audit --no-fund
  fi
}

# What `build` and `run` need; installs only Rust's wasm target, wasm-bindgen-cli and the
# two npm build tools.
setup_build() {
  step "setup: build toolchain (wasm32 target, wasm-bindgen-cli $WASM_BINDGEN_VERSION, wasm-opt and esbuild from npm)"
  require cargo rustup node npm zip
  rustup target list --installed | grep -q '^wasm32-unknown-unknown$' \
    || rustup target add wasm32-unknown-unknown
  npm_install build
  install_wasm_bindgen_in_background
}

# wasm-bindgen-cli is the longest install on a fresh machine and is needed only after the
# core has compiled, so it compiles beside the core and the bridge (two cargo processes
# keep both cores busy through each other's serial stretches: linking, LTO) and `bind_core`
# waits for it. Without its default `rustls-tls` feature: TLS is only for downloading
# browser drivers, which we install ourselves, and it spares compiling ring.
WASM_BINDGEN_INSTALL_PID=""
WASM_BINDGEN_INSTALL_LOG="$ROOT/target/wasm-bindgen-cli-install.log"
install_wasm_bindgen_in_background() {
  if command -v wasm-bindgen >/dev/null \
    && wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\b"; then
    note "wasm-bindgen-cli $WASM_BINDGEN_VERSION already installed"
    return
  fi
  mkdir -p "$(dirname "$WASM_BINDGEN_INSTALL_LOG")"
  note "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION, in the background while the build goes on (log: ${WASM_BINDGEN_INSTALL_LOG#"$ROOT/"})"
  # Without --locked, as the wasm-bindgen docs ask; the version must match Cargo.toml's pin.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features \
    >"$WASM_BINDGEN_INSTALL_LOG" 2>&1 &
  WASM_BINDGEN_INSTALL_PID=$!
  trap 'kill "$WASM_BINDGEN_INSTALL_PID" 2>/dev/null || true' EXIT
}

await_wasm_bindgen() {
  [ -n "$WASM_BINDGEN_INSTALL_PID" ] || return 0
  step "build: waiting for cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  if ! wait "$WASM_BINDGEN_INSTALL_PID"; then
    tail -n 30 "$WASM_BINDGEN_INSTALL_LOG" >&2
    die "cargo install wasm-bindgen-cli failed (whole log: $WASM_BINDGEN_INSTALL_LOG)"
  fi
  WASM_BINDGEN_INSTALL_PID=""
  trap - EXIT
}

# Node $CONFORMANCE_NODE_VERSION in .tools/node22, for the MCP conformance suite alone.
CONFORMANCE_NODE="$TOOLS/node22/node_modules/.bin/node"
setup_conformance_node() {
  step "setup: Node $CONFORMANCE_NODE_VERSION for the MCP conformance suite (npm package node)"
  if [ -x "$CONFORMANCE_NODE" ] && [ "$("$CONFORMANCE_NODE" --version)" = "v$CONFORMANCE_NODE_VERSION" ]; then
    note "Node $CONFORMANCE_NODE_VERSION already installed"
    return
  fi
  mkdir -p "$TOOLS/node22"
  [ -f "$TOOLS/node22/package.json" ] || echo '{"private": true}' >"$TOOLS/node22/package.json"
  npm install --prefix "$TOOLS/node22" --no-audit --no-fund --save-exact "node@$CONFORMANCE_NODE_VERSION"
}

# Everything the tests, benchmarks and demo need on top of the build toolchain.
setup() {
  step "setup: browsers and drivers (Debian chromium, chromium-driver, firefox-esr)"
  if command -v apt-get >/dev/null; then
    # chromium-l10n, firefox-esr-l10n-zh-cn: the Chinese interface the language tests run
    # the float and pages in.
    apt_install chromium chromium-driver chromium-l10n firefox-esr firefox-esr-l10n-zh-cn python3-venv zip
  else
    require chromium chromedriver firefox python3 zip
  fi

  setup_build

  step "setup: test tools (wasm-pack, geckodriver)"
  cargo_install wasm-pack "$WASM_PACK_VERSION" wasm-pack
  cargo_install geckodriver "$GECKODRIVER_VERSION" geckodriver

  step "setup: npm test tools (web-ext, editor libraries, MCP servers)"
  npm_install all

  setup_conformance_node

  step "setup: Python MCP servers (tests/requirements.txt)"
  if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV"; fi
  if ! cmp -s tests/requirements.txt "$VENV/.installed" 2>/dev/null; then
    "$VENV/bin/pip" install -q -r tests/requirements.txt
    cp tests/requirements.txt "$VENV/.installed"
  else
    note "Python packages up to date"
  fi
  setup_lint
  await_wasm_bindgen
}

# ---------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------

# Writes the manifest for one package: `chrome` (development: keeps `key`, the public key
# that fixes the Chromium extension's ID, which the native host allows), `chrome-store` (the
# Chrome Web Store refuses `key`: the store assigns the ID) and `firefox` (the fixed gecko ID
# instead). Chromium wants `background.service_worker`, Firefox `background.scripts`; each
# warns about the other's key, so each gets only its own. The version is the workspace's
# (Cargo.toml), the one `mcp-bridge --version` prints.
write_manifest() {
  local browser="$1" out="$2"
  node - "$browser" "$out" "$(workspace_version)" <<'JS'
const fs = require('fs');
const [browser, out, version] = process.argv.slice(2);
const m = JSON.parse(fs.readFileSync('manifest.json', 'utf8'));
m.version = version;
if (browser === 'chrome' || browser === 'chrome-store') {
  delete m.background.scripts;
  delete m.browser_specific_settings;
  if (browser === 'chrome-store') delete m.key;
} else {
  delete m.background.service_worker;
  delete m.key;
  // Firefox gives every install its own random origin already; the key is Chromium's.
  for (const war of m.web_accessible_resources || []) delete war.use_dynamic_url;
}
fs.writeFileSync(out, JSON.stringify(m, null, 2) + '\n');
JS
}

# The version in one place: `[workspace.package] version` in Cargo.toml.
workspace_version() {
  sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml"
}

# The time every packaged file carries: the commit's (SOURCE_DATE_EPOCH when set, as
# reproducible-builds.org defines it), so two builds of one commit are byte-identical.
source_date_epoch() {
  if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    echo "$SOURCE_DATE_EPOCH"
  elif git -C "$ROOT" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    git -C "$ROOT" log -1 --format=%ct
  else
    echo 315532800 # 1980-01-01, the earliest time a zip can hold
  fi
}

# reproducible_zip DIR ZIP: DIR's files, sorted, all with one time and mode, without
# directory entries or extra attributes (uid/gid, extended timestamps): the bytes depend only
# on the files' contents and names. zip stores local time, hence TZ=UTC.
reproducible_zip() {
  local dir="$1" out="$2" stamp
  # touch -t [[CC]YY]MMDDhhmm[.SS] is the form GNU and BSD (macOS) touch share.
  stamp="$(node -p "new Date($(source_date_epoch) * 1000).toISOString().replace(/^(\\d+)-(\\d+)-(\\d+)T(\\d+):(\\d+):(\\d+).*/, '\$1\$2\$3\$4\$5.\$6')")"
  rm -f "$out"
  find "$dir" \( -type d -exec chmod 755 {} + \) -o \( -type f -exec chmod 644 {} + \)
  find "$dir" -exec env TZ=UTC touch -h -t "$stamp" {} +
  (cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort \
    | TZ=UTC zip -X -D -q -9 "$out" -@)
}

assemble() {
  local browser="$1" dir="$2"
  rm -rf "$dir"; mkdir -p "$dir/core" "$dir/options" "$dir/sites"
  cp -r extension/background.js extension/contract.js extension/content extension/picker.js extension/pages.js "$dir/"
  # The key that site lists must be signed with (a build setting: base64 of the 32 raw
  # bytes of an Ed25519 public key; `./build.sh sign-sites` prints it). Without one the
  # extension refuses every list and says so.
  printf '%s\n' "${MCP_BRIDGE_SITE_LIST_KEY:-}" >"$dir/site-list-key.txt"
  cp -r extension/icons extension/_locales extension/view "$dir/"
  cp extension/sites/*.json "$dir/sites/" 2>/dev/null || true
  cp options/*.html options/*.js options/*.css "$dir/options/"
  cp -r extension/popup "$dir/"
  cp target/wasm-out/mcp_bridge_core.js target/wasm-out/mcp_bridge_core_bg.wasm "$dir/core/"
  # background.js with what it imports (the core's glue, the contract) as one script: a
  # worker woken from cold fetches one file instead of three, 2–4 ms sooner to its first
  # answer (tests/e2e/bench_coldstart.mjs). Not minified beyond what the glue already is;
  # esbuild leaves out the glue's exports nothing uses. The extension pages import the
  # glue itself (`core/mcp_bridge_core.js`, through pages.js).
  esbuild "$dir/background.js" --bundle --format=esm --log-level=warning --allow-overwrite \
    --outfile="$dir/background.js"
  write_manifest "$browser" "$dir/manifest.json"
}

# The three extension packages in OUT (default dist/) from the bound cores in target/: the
# development Chromium build (with `key`), the Chrome Web Store's (without) and Firefox's,
# each as a folder and a reproducible zip.
EXTENSION_PACKAGES=(chrome chrome-store firefox)
package_extension() {
  local out="${1:-$DIST}" package
  mkdir -p "$out" && out="$(cd "$out" && pwd)"
  rm -f "$out"/mcp-bridge-*.zip
  for package in "${EXTENSION_PACKAGES[@]}"; do
    assemble "$package" "$out/$package"
    reproducible_zip "$out/$package" "$out/mcp-bridge-$package.zip"
  done
}

# The wasm build of the core, for the background worker and the extension pages alike,
# kept as target/core.wasm.
compile_core() {
  step "build: core → wasm (profile wasm-release: size first)"
  # The checkout's and the registry's paths are remapped out of the wasm (panic locations
  # would carry them), so it is the same wherever it is built.
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="--remap-path-prefix=$ROOT=/build --remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=/cargo" \
    cargo build --profile wasm-release --target wasm32-unknown-unknown -p mcp-bridge-core
  cp target/wasm32-unknown-unknown/wasm-release/mcp_bridge_core.wasm target/core.wasm
}

# wasm-bindgen's glue for the compiled core, then wasm-opt and esbuild, into
# target/wasm-out.
bind_core() {
  local out=target/wasm-out
  await_wasm_bindgen
  step "build: wasm-bindgen, wasm-opt -Oz (npm binaryen), esbuild: core"
  rm -rf "$out"
  wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name mcp_bridge_core \
    target/core.wasm

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

# The bridge's cargo profile: `release` (optimized whole), or `local` for `run` (Cargo.toml
# says why).
BRIDGE_PROFILE=release

build() {
  compile_core

  # With wasm-bindgen-cli already installed, the core is bound (wasm-opt keeps one core
  # busy) beside the bridge's build, whose last crate and link leave a core free: 30 s of
  # a fresh 2-core build.
  local bind_pid="" bind_log="$ROOT/target/bind-core.log"
  if [ -z "$WASM_BINDGEN_INSTALL_PID" ]; then
    bind_core >"$bind_log" 2>&1 &
    bind_pid=$!
  fi

  step "build: bridge server (profile $BRIDGE_PROFILE)"
  cargo build --profile "$BRIDGE_PROFILE" -p mcp-bridge

  if [ -n "$bind_pid" ]; then
    wait "$bind_pid" || { cat "$bind_log"; die "binding the core failed (log: ${bind_log#"$ROOT/"})"; }
    cat "$bind_log"
  else
    bind_core
  fi

  step "build: assemble dist/"
  package_extension "$DIST"
  note "dist/{chrome,chrome-store,firefox} and their zips dist/mcp-bridge-{chrome,chrome-store,firefox}.zip"

  # What a woken worker loads: the core's wasm and background.js, bundled with
  # wasm-bindgen's glue and the contract. The extension pages load the same wasm; the
  # content script runs in the chat page and is counted on its own.
  local wasm_gz glue_gz page_gz
  wasm_gz=$(gzip -9c "$DIST/chrome/core/mcp_bridge_core_bg.wasm" | wc -c)
  glue_gz=$(gzip -9c "$DIST/chrome/background.js" | wc -c)
  page_gz=$(cat "$DIST/chrome/contract.js" "$DIST/chrome/content/"*.js | gzip -9c | wc -c)
  step "size (gzip -9): core wasm ${wasm_gz} B + worker glue ${glue_gz} B = $((wasm_gz + glue_gz)) B (no limit of its own: the cold start and the first report are the budgets); content script ${page_gz} B"
}

# ---------------------------------------------------------------------------------------
# run / test / bench
# ---------------------------------------------------------------------------------------

run() {
  BRIDGE_PROFILE=local
  build
  cat <<EOF

  The bridge is starting on http://127.0.0.1:3849 (Ctrl+C stops it and its MCP servers).
  Its first lines say whether the extension is paired. To pair once, so that the extension
  finds the bridge and its token by itself: $ROOT/target/$BRIDGE_PROFILE/mcp-bridge install
  Otherwise paste the token printed below into the extension's options page.

  Load the extension unpacked:
    Chrome/Chromium: chrome://extensions → Developer mode → Load unpacked → $DIST/chrome
    Firefox:         about:debugging#/runtime/this-firefox → Load Temporary Add-on…
                     → $DIST/firefox/manifest.json
  Then open a chat page: the MCP Bridge float (or the toolbar icon) shows the connection.

EOF
  exec "$ROOT/target/$BRIDGE_PROFILE/mcp-bridge" "$@"
}

# `cargo test ARGS`, failing unless every test `cargo test ARGS -- --list` names ran: a test
# binary that stops early, or tests skipped or ignored, are not a pass.
cargo_test_all_ran() {
  local log listed ran
  log=$(mktemp)
  listed=$(cargo test "$@" -- --list --format terse 2>/dev/null | grep -c ': test$' || true)
  cargo test "$@" 2>&1 | tee "$log"
  ran=$(sed -nE 's/^test result: [a-zA-Z]+\. ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/p' "$log" |
    awk '{ s += $1 + $2 } END { print s + 0 }')
  rm -f "$log"
  [ "$ran" -eq "$listed" ] || die "cargo test $* ran $ran tests of the $listed it lists"
  note "cargo test $*: all $listed listed tests ran"
}

# `node --test FILES`, failing unless every test node counted ran (none skipped, todo or
# cancelled): its TAP summary is read from a second reporter.
node_test_all_ran() {
  local tap tests pass fail
  tap=$(mktemp)
  node --test --test-concurrency=1 --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "$@"
  tests=$(sed -nE 's/^# tests ([0-9]+)$/\1/p' "$tap" | tail -1)
  pass=$(sed -nE 's/^# pass ([0-9]+)$/\1/p' "$tap" | tail -1)
  fail=$(sed -nE 's/^# fail ([0-9]+)$/\1/p' "$tap" | tail -1)
  rm -f "$tap"
  [ -n "$tests" ] && [ "$tests" -gt 0 ] || die "node --test printed no summary"
  [ "$((pass + fail))" -eq "$tests" ] || die "node --test ran $((pass + fail)) of its $tests tests"
  note "node --test: all $tests tests ran"
}

# A port no one listens on now, for a test server.
free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

test_all() {
  build

  step "test: formatting and lints"
  cargo fmt --all -- --check
  cargo clippy --workspace --all-targets -- -D warnings

  step "test: native (the core on its own, then the rest of the workspace)"
  # The core on its own: in one `cargo test --workspace` the bridge's serde_json
  # `preserve_order` would unify into the core's tests, which then would not read JSON as
  # the extension's wasm (built without it) does.
  cargo_test_all_ran -p mcp-bridge-core
  cargo_test_all_ran --workspace --exclude mcp-bridge-core

  step "test: MCP conformance suite, client scenarios (tests/conformance/run.mjs)"
  # The release bridge `build` made, one scenario at a time; a scenario that fails and is not
  # in tests/conformance/expected-failures.yml (or one there that passes) fails the run.
  CONFORMANCE_NODE="$CONFORMANCE_NODE" MCP_BRIDGE_EXE="$ROOT/target/release/mcp-bridge" \
    node tests/conformance/run.mjs

  step "test: the README's quick start, as written (tests/quickstart.sh)"
  # The quick start's build block is `./build.sh build`, which this command just ran.
  QUICKSTART_SKIP_BUILD=1 tests/quickstart.sh

  step "test: core in real browsers (wasm-pack test --headless)"
  local canned_pid canned_port
  # A free port, never a fixed one: the tests read it at compile time (CANNED_URL).
  canned_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  CANNED_PORT=$canned_port node tests/support/canned_server.mjs & canned_pid=$!
  trap 'kill $canned_pid 2>/dev/null || true' RETURN
  CANNED_URL="http://127.0.0.1:$canned_port" CHROMEDRIVER=/usr/bin/chromedriver wasm-pack test --headless --chrome
  CANNED_URL="http://127.0.0.1:$canned_port" GECKODRIVER="$(command -v geckodriver)" wasm-pack test --headless --firefox
  kill $canned_pid 2>/dev/null || true

  step "test: the fixture pages' self-test (selectors and typing in headless Chromium)"
  node tests/fixtures/build.mjs
  # Node 20 needs the flag for its WebSocket client; later versions have it built in.
  FIXTURE_PORT="$(free_port)" node --experimental-websocket tests/fixtures/selftest.mjs

  step "test: end to end, extension in Chromium and Firefox"
  # An explicit pattern: from Node 21 on, a directory argument is read as a glob.
  node_test_all_ran tests/e2e/*.test.mjs

  step "test: web-ext lint dist/firefox (warnings are errors)"
  web-ext lint --source-dir "$DIST/firefox" --self-hosted --output text --warnings-as-errors

  step "test: release machinery (tests/release/check.sh)"
  tests/release/check.sh
}

bench() {
  build
  step "bench: what each crate adds to the core's wasm"
  node tests/support/wasm_size.mjs target/core.wasm

  step "bench: core pipeline (native)"
  cargo run --release -p mcp-bridge-core --example bench_pipeline

  step "bench: the AI's instructions for 1, 2, 5 and 20 servers (characters; tools listed up to 6,000)"
  cargo test -q -p mcp-bridge-core --test instructions sizes -- --nocapture | grep '^instructions'

  step "bench: the chat loop in Chromium (latency, main-thread cost, float)"
  node tests/e2e/bench_chat.mjs

  step "bench: redesign variants delivered, per site and browser (a seeded sample of 6 per site)"
  VARIANTS_PER_SITE="${VARIANTS_PER_SITE:-6}" node tests/e2e/bench_variants.mjs

  step "bench: a 50 MB result in Chromium (first report against 1 KB, the page's long tasks)"
  node tests/e2e/bench_large.mjs

  step "bench: the background's cold start in Chromium, against a plain-JS worker"
  node tests/e2e/bench_coldstart.mjs

  step "bench: a failed call's first report in a fresh worker (Chromium)"
  node tests/e2e/bench_first_report.mjs

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

# ---------------------------------------------------------------------------------------
# release
# ---------------------------------------------------------------------------------------

RELEASE="$DIST/release"
# Rust target → the name of the binary in dist/release.
RELEASE_TARGETS=(
  "x86_64-unknown-linux-musl:mcp-bridge-linux-x86_64"
  "x86_64-pc-windows-gnu:mcp-bridge-windows-x86_64.exe"
  "aarch64-apple-darwin:mcp-bridge-macos-aarch64"
  "x86_64-apple-darwin:mcp-bridge-macos-x86_64"
)

# The cross toolchain: Rust's targets, mingw-w64 to link the Windows .exe, musl-tools for the
# C in ring (rustls' crypto) on Linux, zig (PyPI `ziglang`, with `cargo-zigbuild`) to link
# for macOS, wine to run the .exe in the smoke test.
setup_release() {
  step "setup: release toolchain (Rust targets, mingw-w64, zig, wine)"
  local target
  for target in "${RELEASE_TARGETS[@]}"; do
    target="${target%%:*}"
    rustup target list --installed | grep -q "^$target\$" || rustup target add "$target"
  done
  if command -v apt-get >/dev/null; then
    apt_install gcc-mingw-w64-x86-64 musl-tools wine wine64 python3-venv file
  else
    require x86_64-w64-mingw32-gcc musl-gcc python3 file
  fi
  if [ ! -x "$TOOLS/zig-venv/bin/python" ]; then python3 -m venv "$TOOLS/zig-venv"; fi
  if ! cmp -s tests/release/requirements.txt "$TOOLS/zig-venv/.installed" 2>/dev/null; then
    "$TOOLS/zig-venv/bin/pip" install -q -r tests/release/requirements.txt
    cp tests/release/requirements.txt "$TOOLS/zig-venv/.installed"
  else
    note "zig and cargo-zigbuild up to date"
  fi
}

# The workflow linters tests/release/check.sh runs: actionlint and zizmor from PyPI in
# .tools/lint-venv (tests/release/lint-requirements.txt), shellcheck for the workflows'
# scripts.
setup_lint() {
  step "setup: workflow linters (actionlint, zizmor, shellcheck)"
  if command -v apt-get >/dev/null; then apt_install shellcheck; else require shellcheck; fi
  if [ ! -x "$TOOLS/lint-venv/bin/python" ]; then python3 -m venv "$TOOLS/lint-venv"; fi
  if ! cmp -s tests/release/lint-requirements.txt "$TOOLS/lint-venv/.installed" 2>/dev/null; then
    "$TOOLS/lint-venv/bin/pip" install -q -r tests/release/lint-requirements.txt
    cp tests/release/lint-requirements.txt "$TOOLS/lint-venv/.installed"
  else
    note "actionlint and zizmor up to date"
  fi
}

# The bridge for every release target (profile `dist`: release, stripped), the extension
# zips, the source archive and SHA256SUMS in dist/release, and the Homebrew formula and Scoop
# manifest written from those checksums; then tests/release/smoke.sh runs the Linux binary
# and the Windows .exe, and tests/release/verify.sh checks versions, names and checksums. A
# target that cannot be built here is reported and left out. The release workflow
# (.github/workflows/release.yml) builds the same files, each binary on its own platform,
# with the same functions.
release() {
  build
  setup_release
  rm -rf "$RELEASE"; mkdir -p "$RELEASE"
  release_extension "$RELEASE"
  local entry target name built=() failed=()
  for entry in "${RELEASE_TARGETS[@]}"; do
    target="${entry%%:*}" name="${entry#*:}"
    step "release: $name ($target)"
    local ok=0
    case "$target" in
      # ring (rustls' crypto) and mimalloc (its allocator) compile C: musl-gcc from musl-tools.
      *-linux-musl)
        CC_x86_64_unknown_linux_musl=musl-gcc \
          cargo build -p mcp-bridge --profile dist --target "$target" && ok=1 ;;
      *-windows-gnu)
        CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
          cargo build -p mcp-bridge --profile dist --target "$target" && ok=1 ;;
      # zig links without Apple's SDK: libSystem and libiconv come with zig, the Security and
      # CoreFoundation frameworks (rustls' platform verifier) from text stubs written for this
      # build (tools/macos_frameworks.py). zig would otherwise stamp its own newest macOS as
      # the minimum, so name rustc's defaults.
      aarch64-apple-darwin)
        python3 tools/macos_frameworks.py target/macos-frameworks >/dev/null &&
        PATH="$TOOLS/zig-venv/bin:$PATH" MACOSX_DEPLOYMENT_TARGET=11.0 \
          CARGO_TARGET_AARCH64_APPLE_DARWIN_RUSTFLAGS="-C link-arg=-F$ROOT/target/macos-frameworks" \
          cargo zigbuild -p mcp-bridge --profile dist --target "$target" && ok=1 ;;
      x86_64-apple-darwin)
        python3 tools/macos_frameworks.py target/macos-frameworks >/dev/null &&
        PATH="$TOOLS/zig-venv/bin:$PATH" MACOSX_DEPLOYMENT_TARGET=10.12 \
          CARGO_TARGET_X86_64_APPLE_DARWIN_RUSTFLAGS="-C link-arg=-F$ROOT/target/macos-frameworks" \
          cargo zigbuild -p mcp-bridge --profile dist --target "$target" && ok=1 ;;
    esac
    local out="target/$target/dist/mcp-bridge"
    [ -f "$out.exe" ] && out="$out.exe"
    if [ $ok = 1 ] && [ -f "$out" ]; then
      cp "$out" "$RELEASE/$name"
      built+=("$name")
    else
      failed+=("$name")
    fi
  done
  release_checksums "$RELEASE"
  step "release: dist/release"
  (cd "$RELEASE" && ls -l --block-size=K -- * | awk '{print "    " $5 "  " $9}')
  [ ${#failed[@]} -gt 0 ] && note "NOT built: ${failed[*]} (see the errors above)"

  step "release: smoke test (tests/release/smoke.sh)"
  REQUIRE_WINE=1 tests/release/smoke.sh "$RELEASE"
  [ ${#failed[@]} -eq 0 ] || die "release incomplete: ${failed[*]} not built"
  step "release: versions, names, checksums, formula and manifest (tests/release/verify.sh)"
  tests/release/verify.sh "$RELEASE"
  step "release: reproducible extension zips, rebuilt from the source twice (tests/release/reproducible.sh full)"
  tests/release/reproducible.sh full
}

# release_extension DIR: the extension zips from dist/ under their release names, which
# carry the version, and the source archive of HEAD that addons.mozilla.org's review asks
# for (store/firefox/SOURCE.md inside says how to build the zips from it).
release_extension() {
  local dir="$1" version package
  version="$(workspace_version)"
  mkdir -p "$dir"
  for package in "${EXTENSION_PACKAGES[@]}"; do
    cp "$DIST/mcp-bridge-$package.zip" "$dir/mcp-bridge-$package-$version.zip"
  done
  if ! git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null; then
    note "the source archive is the last commit ($(git -C "$ROOT" rev-parse --short HEAD)); uncommitted changes are not in it"
  fi
  git -C "$ROOT" archive --format=tar.gz --prefix="mcp-bridge-$version/" \
    -o "$dir/mcp-bridge-source-$version.tar.gz" HEAD
}

# release_checksums DIR: SHA256SUMS of every artifact in DIR, then the Homebrew formula and
# the Scoop manifest, which take their checksums from it. Their download links point at the
# GitHub release of the tag in $GITHUB_REPOSITORY (set on GitHub's runners; elsewhere set
# MCP_BRIDGE_REPOSITORY=owner/name, or the links name OWNER/mcp-bridge).
release_checksums() {
  local dir="$1" repo
  repo="${MCP_BRIDGE_REPOSITORY:-${GITHUB_REPOSITORY:-OWNER/mcp-bridge}}"
  rm -f "$dir/SHA256SUMS" "$dir/mcp-bridge.rb" "$dir/mcp-bridge.json"
  if command -v sha256sum >/dev/null; then
    (cd "$dir" && sha256sum -- * >SHA256SUMS.tmp)
  else
    (cd "$dir" && shasum -a 256 -- * >SHA256SUMS.tmp)
  fi
  mv "$dir/SHA256SUMS.tmp" "$dir/SHA256SUMS"
  node tests/release/package_managers.mjs write "$dir" "$repo" "$(workspace_version)"
}

# The store listings' screenshots (store/screenshots/), taken of the real extension in
# Chromium with the real bridge; only this command writes them.
store_screenshots() {
  build
  step "store: screenshots of the extension in Chromium (tests/e2e/store_screenshots.mjs)"
  node tests/e2e/store_screenshots.mjs "$ROOT/store/screenshots"
}

# The two pictures in docs/ that explain the product (the float after a failed call with its
# report in the chat, and the options page), from the same scenes; only this command writes
# them.
docs_images() {
  build
  step "docs: docs/float-error.png, docs/options.png and docs/app-view.png (tests/e2e/store_screenshots.mjs)"
  local shots
  shots="$(mktemp -d)"
  node tests/e2e/store_screenshots.mjs "$shots"
  cp "$shots/2-error-report.png" docs/float-error.png
  cp "$shots/3-options.png" docs/options.png
  cp "$shots/4-app-view.png" docs/app-view.png
  rm -rf "$shots"
}

# Sourcing the script (for its functions) runs nothing.
[[ "${BASH_SOURCE[0]}" != "$0" ]] && return 0

cmd="${1:-build}"; shift || true
case "$cmd" in
  setup) setup ;;
  build) setup_build; build ;;
  run) setup_build; run "$@" ;;
  test) setup; test_all ;;
  bench) setup; bench ;;
  demo) setup; demo "$@" ;;
  release) setup_build; release ;;
  sign-sites) require node; (cd "$CALLER_DIR" && node "$ROOT/tools/sign_sites.mjs" "$@") ;;
  store-screenshots) setup; store_screenshots ;;
  docs-images) setup; docs_images ;;
  *) die "unknown command '$cmd' (setup | build | run | test | bench | demo | release | sign-sites | store-screenshots | docs-images)" ;;
esac
