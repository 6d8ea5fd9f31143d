-- 0070: the keyed chain's coverage of the provisional vouchers (art. 23.4) and the RIAJ
-- snapshots (art. 20.2). A database whose chain already has entries commits to the
-- vouchers and snapshots it holds in one AUDIT_COVERAGE entry, written by the first desk
-- that opens it (db/pg/store.py): this row asks for it (1 = pending, 2 = done). A chain
-- that committed to any voucher or snapshot before cannot be adopted again
-- (db/audit_chain.py).
INSERT INTO counters (name, next) SELECT 'audit_coverage', 1 WHERE EXISTS (SELECT 1 FROM audit)
ON CONFLICT (name) DO NOTHING;
