#!/usr/bin/env bash
# apt-need.sh "WHAT FOR" PACKAGE...: makes sure Debian packages are installed.
# Idempotent: prints nothing when all are there; installs the missing ones as root
# (one `apt-get update` first); otherwise says what to install and exits 1.
set -euo pipefail
purpose=$1
shift
missing=()
for pkg in "$@"; do
    # dpkg -s succeeds for removed-but-configured packages too: check the status line
    if ! dpkg -s "$pkg" 2>/dev/null | grep -q "^Status: install ok installed"; then
        missing+=("$pkg")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "$purpose needs: ${missing[*]}" >&2
    echo "install them with: sudo apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
fi
echo "installing for $purpose: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
