#!/usr/bin/env bash
# Installs what the browser tests drive: Debian's Chromium and its
# WebDriver server (chromedriver). Idempotent: nothing is installed when
# both are already there. Needs root (CI runs as root) and Debian's
# package mirrors; nothing is downloaded from anywhere else.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }

if ! have chromium || ! have chromedriver; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "scripts/browser/setup.sh: chromium or chromedriver is missing and this is not root; run: apt-get install chromium chromium-driver" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
fi

chromium --version
chromedriver --version
