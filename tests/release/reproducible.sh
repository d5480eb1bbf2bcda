#!/usr/bin/env bash
# Reproducible extension zips: two builds of the same source in two different directories
# give byte-identical zips.
#
#   tests/release/reproducible.sh quick   (./build.sh test) the source copied into two temp
#       directories of different depth, each packaging the core `./build.sh build` compiled
#       (target/wasm-out): the assembly and zip step, whose bytes must also equal dist/'s;
#       and the compiled wasm must hold no path of this checkout or of the cargo registry
#       (build.sh remaps them: --remap-path-prefix), which is what lets the compile step
#       itself agree between directories.
#   tests/release/reproducible.sh full    (./build.sh release) the same two copies each
#       compile the core to wasm themselves (registry crates reused from target/, the
#       workspace crates compiled anew in their own directory), bind and package it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MODE="${1:-quick}"
WORK="$(mktemp -d /tmp/mcp-bridge-repro.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"

fail() { printf '  FAIL %s\n' "$*" >&2; exit 1; }

# One commit time for every build compared, dist/'s included.
SOURCE_DATE_EPOCH="$(git log -1 --format=%ct 2>/dev/null || echo 315532800)"
export SOURCE_DATE_EPOCH

# copy_source DEST: the files git would see (tracked and new, not ignored), as they are now.
copy_source() {
  mkdir -p "$1"
  git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' file; do [ -e "$file" ] && printf '%s\0' "$file"; done \
    | tar --null -T - -cf - | tar -xf - -C "$1"
  # node_modules (for esbuild and wasm-opt) is the same packages wherever it is linked from.
  ln -s "$ROOT/node_modules" "$1/node_modules"
}

A="$WORK/a/mcp-bridge"
B="$WORK/b/deeper/checkout/of/mcp-bridge"
for dir in "$A" "$B"; do copy_source "$dir"; done

start=$(date +%s)
case "$MODE" in
  quick)
    [ -f target/wasm-out/mcp_bridge_core_bg.wasm ] || fail "no target/wasm-out: run ./build.sh build first"
    for dir in "$A" "$B"; do
      mkdir -p "$dir/target"
      cp -r target/wasm-out "$dir/target/"
      (cd "$dir" && bash -c 'source ./build.sh && package_extension "$PWD/dist"') >/dev/null
    done
    # The wasm as rustc wrote it and as shipped: no path of this machine.
    for wasm in target/core.wasm dist/chrome/core/*.wasm; do
      for leak in "$ROOT" "${CARGO_HOME:-$HOME/.cargo}"; do
        if grep -qaF "$leak" "$wasm"; then
          fail "$wasm holds the build path $leak ($(grep -aoF "$leak[^\"]*" "$wasm" | head -1))"
        fi
      done
      printf '  ok  %s holds no build path (%s, %s)\n' "$wasm" "$ROOT" "${CARGO_HOME:-$HOME/.cargo}"
    done
    ;;
  full)
    [ -d target/wasm32-unknown-unknown/wasm-release ] || fail "no compiled core: run ./build.sh build first"
    for dir in "$A" "$B"; do
      mkdir -p "$dir/target/wasm32-unknown-unknown"
      cp -a target/wasm32-unknown-unknown/wasm-release "$dir/target/wasm32-unknown-unknown/"
      (cd "$dir" && bash -c 'source ./build.sh && compile_core && bind_core \
        && package_extension "$PWD/dist"') >"$WORK/build-$(basename "$(dirname "$dir")").log" 2>&1 \
        || { tail -30 "$WORK"/build-*.log >&2; fail "the build in $dir failed"; }
    done
    ;;
  *) fail "unknown mode '$MODE' (quick | full)" ;;
esac

for package in chrome chrome-store firefox; do
  zip="mcp-bridge-$package.zip"
  if ! cmp -s "$A/dist/$zip" "$B/dist/$zip"; then
    # Which files differ, kept for a look: the temp directory is removed on exit.
    keep="$(mktemp -d /tmp/mcp-bridge-repro-diff.XXXXXX)"
    cp -r "$A/dist/$package" "$keep/a"; cp -r "$B/dist/$package" "$keep/b"
    fail "$zip differs between $A and $B: $(diff -rq "$keep/a" "$keep/b" | tr '\n' ' ') (kept in $keep)"
  fi
  if [ "$MODE" = quick ]; then
    cmp -s "$A/dist/$zip" "dist/$zip" || fail "$zip differs from dist/$zip (was dist/ built from this tree?)"
  fi
  printf '  ok  %s: byte-identical from two directories (sha256 %s)\n' "$zip" \
    "$(sha256sum "$A/dist/$zip" | cut -c1-16)…"
done
echo "reproducible ($MODE): $(($(date +%s) - start)) s"
