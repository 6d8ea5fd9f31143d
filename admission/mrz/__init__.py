"""Machine-readable zones (ICAO Doc 9303): layouts, check digits, parsing, reader bursts.

``layout`` declares the formats (TD1, TD2, TD3, MRV-A/B, the French ID card),
``check`` the check digits and the corrections they allow, ``parse`` turns lines into
a :class:`~admission.mrz.parse.MrzResult`, ``burst`` assembles what a document reader
types or sends into MRZs and codes.
"""
