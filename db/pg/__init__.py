"""The visitor file on a PostgreSQL server. It is confidential (Decreto 58/2006, art.
20.4; GDPR art. 32): the desk encrypts personal data before it reaches the server, so a
database administrator, a backup or a stolen disk reveals no visitor (docs/postgresql.md).
"""
