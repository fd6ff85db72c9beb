#!/usr/bin/env bash
# Install the Debian packages that build the firmware and run it in simavr.
# Idempotent: when everything is present it prints nothing and exits 0.
# As root it installs what is missing; otherwise it says what to install and exits 1.
set -euo pipefail

PACKAGES=(gcc-avr avr-libc arduino-core-avr arduino-mk simavr libsimavr-dev libelf-dev)

missing=()
for pkg in "${PACKAGES[@]}"; do
    # dpkg -s succeeds for removed-but-configured packages too; check the status line.
    if ! dpkg -s "$pkg" 2>/dev/null | grep -q "^Status: install ok installed"; then
        missing+=("$pkg")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "firmware toolchain missing: ${missing[*]}" >&2
    echo "install them with: sudo apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
fi

echo "installing firmware toolchain: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
