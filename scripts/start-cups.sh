#!/bin/sh
# Start CUPS without systemd and create the demo/test PDF queues.
#
# Idempotent: safe to run before every test run. Needs root for cupsd and lpadmin;
# as another user it only reports the state and exits 0 so the printer tests skip.
#
#   CardPDF     cups-pdf queue for CR80 entry cards (jobs submitted at
#               PageSize=Custom.85.6x54mm by hardware/printer/cups.py)
#   LeafletPDF  cups-pdf queue for A4/A5 leaflets and vouchers
#
# cups-pdf writes its files to $CUPS_PDF_OUT (default /var/spool/cups-pdf/out);
# the last line printed is "cups-pdf output: DIR". Tests move their files out of
# that directory into their own temporary directory and delete them.
set -eu

OUT_DIR="${CUPS_PDF_OUT:-/var/spool/cups-pdf/out}"
CONF=/etc/cups/cups-pdf.conf
PPD=lsb/usr/cups-pdf/CUPS-PDF_opt.ppd

scheduler_running() {
    # `lpstat -r` exits 0 even when the scheduler is down: parse its text.
    lpstat -r 2>/dev/null | grep -q "scheduler is running"
}

if ! command -v cupsd >/dev/null 2>&1 || ! command -v lpadmin >/dev/null 2>&1; then
    echo "start-cups: CUPS is not installed (packages: cups cups-client cups-bsd printer-driver-cups-pdf)" >&2
    exit 0
fi

if [ "$(id -u)" != "0" ]; then
    if scheduler_running; then
        echo "start-cups: scheduler is running (not root: queues not checked)"
    else
        echo "start-cups: not root and cupsd is not running; printer tests will be skipped" >&2
    fi
    exit 0
fi

mkdir -p /run/cups
chmod 0755 /run/cups

# cups-pdf output directory: one fixed place instead of ${HOME}/PDF.
mkdir -p "$OUT_DIR"
chmod 1777 "$OUT_DIR"
if [ -f "$CONF" ]; then
    if ! grep -q "^Out $OUT_DIR\$" "$CONF"; then
        sed -i "s|^#\{0,1\}Out .*|Out $OUT_DIR|" "$CONF"
        grep -q "^Out " "$CONF" || echo "Out $OUT_DIR" >> "$CONF"
    fi
fi

if ! scheduler_running; then
    # Without systemd: cupsd daemonises itself once /run/cups exists.
    # (IdleExitTimeout only applies to on-demand -l mode, not here.)
    cupsd
    i=0
    until scheduler_running; do
        i=$((i + 1))
        if [ "$i" -gt 100 ]; then
            echo "start-cups: cupsd did not start within 10 s" >&2
            exit 1
        fi
        sleep 0.1
    done
fi

# Privacy: CUPS 2.4 keeps the document of a finished job for a day by default
# (PreserveJobFiles 86400) - for us a card PDF with a name and a document number.
# Job history (titles are "card-<number>", never names) may stay.
if ! grep -qi "^PreserveJobFiles No" /etc/cups/cupsd.conf; then
    cupsctl PreserveJobFiles=No   # rewrites cupsd.conf and restarts the scheduler
    i=0
    sleep 0.5
    until scheduler_running; do
        i=$((i + 1))
        if [ "$i" -gt 100 ]; then
            echo "start-cups: cupsd did not come back after cupsctl" >&2
            exit 1
        fi
        sleep 0.1
    done
fi

ensure_queue() {
    name="$1"; shift
    if ! lpstat -p "$name" >/dev/null 2>&1; then
        lpadmin -p "$name" -E -v cups-pdf:/ -m "$PPD" "$@"
    fi
    # cups-pdf goes PDF -> PostScript -> PDF. The default PostScript renderers drop the
    # ToUnicode maps of embedded TrueType subsets (accented names come back as garbage
    # when the PDF is read back); pdftocairo keeps them. Real card printers use their
    # own raster drivers and are not affected.
    lpadmin -p "$name" -o pdftops-renderer-default=pdftocairo
    # A queue left paused or rejecting by an earlier test is put back in service.
    cupsenable "$name" 2>/dev/null || true
    cupsaccept "$name" 2>/dev/null || true
}

ensure_queue CardPDF -D "CR80 entry cards (PDF)"
ensure_queue LeafletPDF -D "A4/A5 leaflets and vouchers (PDF)" -o PageSize=A5

echo "start-cups: scheduler is running; queues: CardPDF LeafletPDF"
echo "cups-pdf output: $OUT_DIR"
