#!/usr/bin/env bash
# Debian's Chromium and its WebDriver, for the web display tests (headless).
# Idempotent: prints nothing when both are there; installs them as root; otherwise says
# what to install and exits 1.
set -euo pipefail
PACKAGES=(chromium chromium-driver)
missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg -s "$pkg" 2>/dev/null | grep -q "^Status: install ok installed"; then
        missing+=("$pkg")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "browser for the web tests missing: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "installing ${missing[*]} for the web display tests"
export DEBIAN_FRONTEND=noninteractive
# firmware/install-deps.sh may have refreshed the lists already; a second update is cheap
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
