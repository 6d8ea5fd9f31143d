-- 0060: the voucher counter (art. 23.4: correlative, never given twice even after the
-- purge erased the newest vouchers, as the card counter, art. 22.1), and the keyed
-- chain's coverage of vouchers and RIAJ snapshots (db/audit.py).
--
-- A file whose chain already has entries commits to the vouchers and snapshots it
-- holds in one AUDIT_COVERAGE entry, written by the store at its first write: the
-- setting below asks for it (a file whose chain committed to any voucher or snapshot
-- before cannot be adopted again: db/audit_chain.py).
INSERT INTO counters (name, next) SELECT 'voucher', COALESCE(MAX(number), 0) + 1 FROM vouchers;
INSERT INTO settings (key, value) SELECT 'audit.coverage_pending', '1'
    WHERE EXISTS (SELECT 1 FROM audit);
