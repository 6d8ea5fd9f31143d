"""The check of a desk's file copied onto the server against the file (db/pg/copy_file.py):
counts per table, the card numbers and counters, the vouchers and settings as both
stores read them, and the server's whole chain anchored at the source's head."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from admission.errors import StoreError
from admission.records import AuditAnchor, AuditHead
from db.pg import copy_source as src
from db.pg.copy_report import COPY_MARKER, CopyCode, CopyReport
from db.pg.copy_rows import migrated_seq, server_count
from db.pg.store import PgStore
from db.store import SqlCipherStore
from db.tx import Tx
from db.voucher_book import StoreVoucherBook

NUMBERS_BATCH = 5000  # card numbers compared per read


def verify_copy(
    source: SqlCipherStore,
    target: PgStore,
    report: CopyReport | None = None,
) -> CopyReport:
    """Compare the server's copy with the source: counts per table, the card number set
    and counter, the voucher counter, the carried settings and vouchers as both stores
    read them, and the whole audit chain on the server (every row present checked
    against it, accounts included: ``PgStore.verify``, as the desks run it) anchored at
    the source's head."""
    if report is None:
        head = source.head()
        marker = target.get_setting(COPY_MARKER)
        if marker is not None:  # the head the copy was made from
            found = json.loads(marker)
            head = AuditHead(int(found["head_seq"]), str(found["head_digest"]), None)
        report = CopyReport(
            source_file_id=src.file_identity(source, head),
            source_head_seq=head.seq,
            source_head_digest=head.digest,
        )
    diffs: list[str] = []
    copied = AuditHead(report.source_head_seq, report.source_head_digest, None)
    try:
        report.source_entries_after = src.entries_after(source, copied)
    except StoreError:
        diffs.append("source: rows recorded or erased after the head copied")
    report.source_counts = src.source_counts(source, report.source_head_seq)
    report.target_counts = _target_counts(target, report.source_counts)
    report.migrated_seq = migrated_seq(target, report.source_head_seq)
    if not report.migrated_seq:
        diffs.append("audit: no FILE_MIGRATED entry after the source's head")
    for table, count in report.source_counts.items():
        found = report.target_counts.get(table, 0)
        if table == "audit":
            found -= 1 if report.migrated_seq else 0
        if found != count:
            diffs.append(f"{table}: {count} in the source, {found} on the server")
    report.card_numbers_equal, report.card_gaps, card_diffs = _compare_cards(source, target)
    diffs += card_diffs
    report.last_card_number = target.last_card_number()
    source_last = src.counter(source, "card") - 1
    if report.last_card_number != source_last:
        diffs.append(
            f"card counter: last {source_last} in the source, "
            f"{report.last_card_number} on the server"
        )
    report.last_voucher_number = StoreVoucherBook(target).last_voucher_number()
    source_voucher = src.last_voucher(source)
    if report.last_voucher_number != source_voucher:
        diffs.append(
            f"voucher counter: last {source_voucher} in the source, "
            f"{report.last_voucher_number} on the server"
        )
    diffs += _compare_vouchers(source, target)
    diffs += _compare_settings(source, target)
    anchors = [AuditAnchor(report.source_head_seq, report.source_head_digest)]
    if report.source_head_seq == 0:
        anchors = []
    report.audit = target.verify(anchors)  # the desk accounts included, as in the source
    if not report.audit.ok:
        diffs.append(
            f"audit chain on the server: {report.audit.problem} "
            f"(seq {report.audit.first_bad_seq}, {report.audit.row or '-'})"
        )
    report.differences = diffs
    report.ok = not diffs
    report.code = "" if report.ok else str(CopyCode.MISMATCH)
    return report


def _target_counts(target: PgStore, wanted: dict[str, int]) -> dict[str, int]:
    counts = {table: server_count(target, table) for table in wanted if table != "settings"}
    counts["settings"] = len(_carried_settings_of_target(target))
    return counts


def _carried_settings_of_target(target: PgStore) -> list[tuple[str, Any]]:
    rows = target.read(
        lambda tx: tx.all("SELECT key, value FROM settings WHERE key <> ?", (COPY_MARKER,))
    )
    return [(str(k), v) for k, v in rows]


def _numbers(store: SqlCipherStore | PgStore) -> Iterator[int]:
    """The store's card numbers in order, read in batches."""
    last = 0

    def after(tx: Tx) -> list[tuple[Any, ...]]:
        sql = "SELECT number FROM cards WHERE number > ? ORDER BY number LIMIT ?"
        return tx.all(sql, (last, NUMBERS_BATCH))

    while rows := store.read(after):
        yield from (int(r[0]) for r in rows)
        last = int(rows[-1][0])


def _compare_cards(source: SqlCipherStore, target: PgStore) -> tuple[bool, int, list[str]]:
    """The card numbers present on both sides, in order, batch by batch (art. 22.1)."""
    count, top, first_diff = 0, 0, None
    mine, theirs = _numbers(source), _numbers(target)
    while True:
        a, b = next(mine, None), next(theirs, None)
        if a is None and b is None:
            break
        if a != b:
            first_diff = a if b is None else (b if a is None else min(a, b))
            break
        assert a is not None
        count, top = count + 1, a
    last = src.counter(source, "card") - 1
    gaps = max(last, top) - count
    if first_diff is not None:
        return False, gaps, [f"cards: the number sets differ from {first_diff}"]
    return True, gaps, []


def _compare_vouchers(source: SqlCipherStore, target: PgStore) -> list[str]:
    if not src.has_table(source, "vouchers"):
        return []
    mine, theirs = StoreVoucherBook(source), StoreVoucherBook(target)
    numbers = [int(r[0]) for r in src.select(source, "SELECT number FROM vouchers ORDER BY 1")]
    for number in numbers:
        if mine.voucher(number) != theirs.voucher(number):
            return [f"vouchers: number {number} differs"]
    return []


def _compare_settings(source: SqlCipherStore, target: PgStore) -> list[str]:
    diffs = []
    stored = dict(_carried_settings_of_target(target))
    for key, value in src.carried_settings(source):
        if key.startswith("secret:"):  # opened as PgStore.secret opens it
            held = stored.get(key)
            same = held is not None and target.ring.open(
                bytes(held), table="settings", column="value", row=key
            ) == bytes(value)
        else:
            same = target.get_setting(key) == (
                value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
            )
        if not same:
            diffs.append(f"settings: {key} differs")
    return diffs
