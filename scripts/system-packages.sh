#!/bin/sh
# Installs the Debian packages the admission desk needs. Idempotent: packages
# already present are skipped, so running it twice costs one dpkg query.
# Called by tools/bootstrap.py for both "start" and "test". chromium and
# chromium-driver are for the tests of the floor's phone page (a real browser), not
# for the desk. pcscd, vsmartcard-vpcd and pcsc-tools are the chip tests' PC/SC service and
# virtual reader (a real contactless reader needs only pcscd); swig, gcc, python3-dev and
# libpcsclite-dev build pyscard, which has no Linux wheel.
# nsis (makensis) and osslsigncode compile and sign the Windows installer's script in its tests.
set -eu

PACKAGES="python3-venv python3-pip
libgl1 libegl1 libglib2.0-0 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0
libxcb-randr0 libxcb-render-util0 libxcb-image0
libcups2 cups cups-client cups-bsd printer-driver-cups-pdf
libzbar0 fonts-dejavu-core
postgresql
chromium chromium-driver
pcscd libpcsclite1 libpcsclite-dev swig gcc python3-dev vsmartcard-vpcd pcsc-tools
nsis osslsigncode"

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "system-packages: apt-get not found; install these packages by hand:$missing" >&2
    exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "system-packages: missing Debian packages:$missing" >&2
    echo "Run as root:  sudo sh scripts/system-packages.sh" >&2
    exit 1
fi

echo "system-packages: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
