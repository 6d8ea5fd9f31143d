-- 0041: the quick unlock's PIN (an idle desk locked by its operator opens with a short
-- PIN; a sign-in always takes the password). pin_hash is an argon2id PHC string, never
-- the PIN, and NULL while the operator has set none. The keyed chain commits to it with
-- the rest of the row (db/accounts.py): a hash put in by hand does not verify.
ALTER TABLE accounts ADD COLUMN pin_hash TEXT;
