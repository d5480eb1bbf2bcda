#!/usr/bin/env bash
# The release notes of VERSION: its section of CHANGELOG.md (from its `## VERSION` heading to
# the next `## `), without the heading. Fails when there is none or it is empty, so a tag
# cannot be released without notes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VERSION="${1:?usage: release_notes.sh VERSION}"
notes="$(awk -v v="$VERSION" '
  /^## / { if (inside) exit; inside = ($2 == v || $2 == "[" v "]"); next }
  inside { print }
' "$ROOT/CHANGELOG.md")"
[ -n "$(tr -d '[:space:]' <<<"$notes")" ] || { echo "release_notes: CHANGELOG.md has no notes under '## $VERSION'" >&2; exit 1; }
printf '%s\n' "$notes" | sed -e '/./,$!d'
