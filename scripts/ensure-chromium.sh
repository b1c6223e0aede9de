#!/usr/bin/env bash
# Browser tests drive Debian's Chromium (never a downloaded browser); install it when missing.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  echo "Chromium is missing and this user cannot install it: run 'apt-get install -y chromium' as root." >&2
  exit 1
fi
echo "Installing Debian's chromium for the browser tests" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
