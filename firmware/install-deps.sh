#!/usr/bin/env bash
# Installs the Debian packages that build the firmware and run it in simavr (as root),
# or says which are missing. Prints nothing when everything is there.
exec "$(dirname "$0")/../scripts/apt-need.sh" "the firmware toolchain" \
    gcc-avr avr-libc arduino-core-avr arduino-mk simavr libsimavr-dev libelf-dev
