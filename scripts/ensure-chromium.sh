#!/usr/bin/env bash
# Browser tests drive Debian's Chromium (never a downloaded browser): its headless shell, which the
# suite runs in, and the full browser (CHROMIUM_PATH=/usr/bin/chromium runs the suite in it;
# docs/decisions.md, "The headless shell"). Installs them when missing.
set -euo pipefail
if [ -x /usr/bin/chromium-headless-shell ] && [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  echo "Chromium is missing and this user cannot install it: run 'apt-get install -y chromium chromium-headless-shell' as root." >&2
  exit 1
fi
echo "Installing Debian's chromium and chromium-headless-shell for the browser tests" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium chromium-headless-shell fonts-dejavu-core >/dev/null
