#!/usr/bin/env bash
# Installs fakepve (a stateful fake of the Proxmox VE API, from PyPI; AGPL, so
# it is run as a separate process and never vendored) into a venv under
# target/. Idempotent: a venv that already imports fakepve is left alone.
# Usage: scripts/fakepve/setup.sh [VENV_DIR]   (default: <repo>/target/fakepve-venv)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${1:-$repo/target/fakepve-venv}"
version="${FAKEPVE_VERSION:-0.5}"

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import fakepve, cryptography' 2>/dev/null; then
  exit 0
fi
python="$(command -v python3 || true)"
if [ -z "$python" ]; then
  echo "fakepve setup: python3 is not installed" >&2
  exit 1
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "fakepve[crypto]~=$version.0"
"$venv/bin/python" -c 'import fakepve, cryptography' || {
  echo "fakepve setup: installed, but 'import fakepve, cryptography' fails" >&2
  exit 1
}
