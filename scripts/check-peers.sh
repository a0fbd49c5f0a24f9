#!/usr/bin/env bash
# Before the full test suite (`npm test`): are the peers the interop tests talk to here? kcat, and
# Debian's python3 (KAFKALITE_PYTHON overrides /usr/bin/python3) with kafka-python, confluent-kafka
# and the codec modules; and ../shared (KAFKALITE_SHARED overrides) with the corpora. Missing
# Debian peers are installed when this runs as root (scripts/install-peers.sh, as .ci/run does);
# otherwise, or when ../shared is missing, it fails with one line saying what to run. The tests
# themselves never skip a missing peer: they fail, at length, one by one.
set -uo pipefail
# bash builtins and PATH lookups only (no dirname, realpath): the check is exercised with a fake PATH
here=${BASH_SOURCE[0]%/*}
[[ $here == "${BASH_SOURCE[0]}" ]] && here=.
root=$(cd "$here/.." && pwd)
python=${KAFKALITE_PYTHON:-/usr/bin/python3}
# Debian's Chromium, driven by playwright-core in the web console's browser tests
chromium=${KAFKALITE_CHROMIUM:-/usr/bin/chromium}
shared=${KAFKALITE_SHARED:-$root/../shared}
modules=(kafka confluent_kafka lz4 zstandard xxhash snappy crc32c)

missing_peers() {
  local missing=()
  command -v kcat >/dev/null 2>&1 || missing+=(kcat)
  [[ -x $chromium ]] || missing+=(chromium)
  if [[ -x $python ]]; then
    local absent
    absent=$("$python" -c 'import importlib.util, sys; print(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))' "${modules[@]}" 2>/dev/null) || absent="${modules[*]}"
    for m in $absent; do missing+=("python3 module $m"); done
  else
    missing+=("$python")
  fi
  local IFS=,
  echo "${missing[*]}"
}

missing=$(missing_peers)
if [[ -n $missing ]] && [[ $(id -u 2>/dev/null) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "check-peers: installing the Debian test peers (missing: ${missing//,/, }) with scripts/install-peers.sh" >&2
  "$BASH" "$root/scripts/install-peers.sh" >&2 || true
  missing=$(missing_peers)
fi
if [[ -n $missing ]]; then
  echo "check-peers: missing test peers (${missing//,/, }): install them with: sudo $root/scripts/install-peers.sh" >&2
  exit 1
fi
if [[ ! -d $shared/corpora ]]; then
  echo "check-peers: missing $shared/corpora: the corpora tests need ../shared beside the checkout (or KAFKALITE_SHARED)" >&2
  exit 1
fi
