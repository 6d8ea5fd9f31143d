-- 0002: the desk's admission ids (db/pg/store.py, PgStore.record_admission). A desk
-- whose connection broke while its admission was committing does not know whether the
-- visit and its card number were recorded; it asks again with the same id, and the
-- admission recorded under it is returned instead of a second card number being taken
-- (art. 22.1: one gapless correlative sequence, no number twice for one admission).
-- The row goes with its visit when retention erases the visit (art. 20.4).
CREATE TABLE admissions (
    admission_id  uuid PRIMARY KEY,
    visit_id      bigint NOT NULL UNIQUE REFERENCES visits (visit_id) ON DELETE CASCADE,
    new_visitor   boolean NOT NULL,
    existing_card bigint
);
