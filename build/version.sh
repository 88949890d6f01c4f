#!/usr/bin/env bash
# Prints the build's identity for make (ldflags) and make package:
#
#   build/version.sh           the version: with a v* tag, `git describe --tags`
#                              without the v, "-N-g<sha>" written "+N.g<sha>"
#                              (v1.2.0 → 1.2.0, 3 commits on → 1.2.0+3.gab12cd3);
#                              else 0.0.0~git<YYYYMMDD>.<short sha>, the date
#                              the commit's (UTC). Both are valid Debian
#                              versions and sort the way they were made.
#   build/version.sh commit    the commit (full sha), "-dirty" when tracked files changed
#   build/version.sh date      the build date, RFC 3339 UTC ($SOURCE_DATE_EPOCH if set)
#
# Outside a git checkout: 0.0.0~unknown, "" and the date.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-version}" in
version)
  if ! git rev-parse --git-dir >/dev/null 2>&1; then echo "0.0.0~unknown"; exit 0; fi
  if d=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
    d=${d#v}
    # 1.2.0-3-gab12cd3 → 1.2.0+3.gab12cd3 (a hyphen would start a Debian revision)
    if [[ $d =~ ^(.*)-([0-9]+)-g([0-9a-f]+)$ ]]; then
      d="${BASH_REMATCH[1]}+${BASH_REMATCH[2]}.g${BASH_REMATCH[3]}"
    fi
    echo "$d"
  else
    echo "0.0.0~git$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d).$(git rev-parse --short=7 HEAD)"
  fi
  ;;
commit)
  if ! git rev-parse --git-dir >/dev/null 2>&1; then echo ""; exit 0; fi
  c=$(git rev-parse HEAD)
  git diff --quiet HEAD -- 2>/dev/null || c="$c-dirty"
  echo "$c"
  ;;
date)
  if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ
  else
    date -u +%Y-%m-%dT%H:%M:%SZ
  fi
  ;;
*)
  echo "usage: $0 [version|commit|date]" >&2
  exit 2
  ;;
esac
