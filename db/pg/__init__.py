"""The PostgreSQL store's foundations: application-level encryption of personal data
(:mod:`db.pg.crypto`) and TLS connections with client certificates (:mod:`db.pg.connect`).

The visitor file is confidential (Decreto 58/2006, art. 20.4; GDPR art. 32): personal
data is encrypted by the desk before it reaches the server, so that a database
administrator, a backup or a stolen disk reveals no visitor. See docs/postgresql.md.
"""
