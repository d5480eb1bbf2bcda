#!/usr/bin/env python3
"""Link stubs for the two Apple frameworks the bridge's TLS needs on macOS.

zig links the macOS binaries without Apple's SDK. rustls' platform verifier (pulled in by
reqwest's rustls support) links `Security` and `CoreFoundation`, which zig cannot find
without an SDK. A text stub (`.tbd`, the format of the SDK's own stubs) names the framework's
install path and the symbols it exports; the linker needs nothing else, and on a Mac the
loader binds them to the real framework. The symbols are read from the `extern` blocks of the
`-sys` crates in this build's dependency graph, so they follow the crates' versions.

Usage: tools/macos_frameworks.py OUT_DIR   (then link with -F OUT_DIR)
"""
import json
import pathlib
import re
import subprocess
import sys

FRAMEWORKS = {
    "security-framework-sys": "Security",
    "core-foundation-sys": "CoreFoundation",
}

# A declaration inside an `extern "C"` block: a function or a static, possibly behind
# attributes on the lines before.
DECL = re.compile(r"^\s*pub\s+(?:fn|static(?:\s+mut)?)\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)


def extern_symbols(source: str) -> set[str]:
    names = set()
    for block in re.finditer(r'extern\s+"C"\s*\{', source):
        depth, i = 1, block.end()
        while depth and i < len(source):
            depth += {"{": 1, "}": -1}.get(source[i], 0)
            i += 1
        names.update(DECL.findall(source[block.end():i]))
    return names


def crate_dirs() -> dict[str, pathlib.Path]:
    meta = json.loads(subprocess.check_output(
        ["cargo", "metadata", "--format-version", "1", "--locked",
         "--filter-platform", "aarch64-apple-darwin"]))
    return {p["name"]: pathlib.Path(p["manifest_path"]).parent
            for p in meta["packages"] if p["name"] in FRAMEWORKS}


def stub(framework: str, symbols: set[str]) -> str:
    listed = ", ".join(f"_{s}" for s in sorted(symbols))
    targets = "[ x86_64-macos, arm64-macos ]"
    return (
        "--- !tapi-tbd\n"
        "tbd-version: 4\n"
        f"targets: {targets}\n"
        f"install-name: '/System/Library/Frameworks/{framework}.framework/Versions/A/{framework}'\n"
        "exports:\n"
        f"  - targets: {targets}\n"
        f"    symbols: [ {listed} ]\n"
        "...\n"
    )


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    found = crate_dirs()
    for crate, framework in FRAMEWORKS.items():
        if crate not in found:
            continue  # not in this build: nothing to link
        symbols = set()
        for rs in sorted((found[crate] / "src").rglob("*.rs")):
            symbols |= extern_symbols(rs.read_text(encoding="utf-8"))
        folder = out / f"{framework}.framework"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{framework}.tbd").write_text(stub(framework, symbols), encoding="utf-8")
        print(f"{framework}: {len(symbols)} symbols")


if __name__ == "__main__":
    main()
