#!/bin/sh
# Debian packages needed ONLY by tests/bench/bench_mrz.py (PassportEye calls the
# tesseract binary). Not needed by the admission desk itself. Idempotent.
# Then: python3.11 -m venv .venv-bench && .venv-bench/bin/pip install -r requirements-bench.txt
set -eu

PACKAGES="tesseract-ocr tesseract-ocr-eng"

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "bench-packages: run as root, or: sudo apt-get install$missing" >&2
    exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
