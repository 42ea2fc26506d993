#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed for the browser tests (browser downloads fail here).
set -euo pipefail
path="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$path" ]; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  echo "Chromium is missing at $path; install it with: sudo apt-get install -y chromium" >&2
  exit 1
fi
echo "Installing Debian's chromium package..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
[ -x "$path" ] || { echo "chromium did not install at $path" >&2; exit 1; }
