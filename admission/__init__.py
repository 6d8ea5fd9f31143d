"""Admission desk domain: pure Python, standard library only (STYLE.md rule 2)."""
