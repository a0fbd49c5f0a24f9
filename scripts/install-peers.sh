#!/usr/bin/env bash
# Installs the Debian peers the tests talk to (run as root; .ci/run and scripts/check-peers.sh use
# it): kcat, kafka-python, confluent-kafka (librdkafka) and the Python codec modules the
# cross-checks use, and chromium for the web console's browser tests. The one place this package list lives.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  kcat python3-kafka python3-confluent-kafka \
  python3-lz4 python3-zstandard python3-xxhash python3-snappy python3-crc32c chromium openssl >/dev/null
