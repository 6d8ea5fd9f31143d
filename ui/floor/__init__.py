"""The floor service (art. 22.4): card checks from staff phones on the casino's LAN.

:mod:`ui.floor.service` holds the rules (sessions, device tokens, rate limits, answers,
audit) with neither HTTP nor Qt; :mod:`ui.floor.http` maps HTTPS requests onto it
(aiohttp, on a thread of its own); :mod:`ui.floor.certs` makes or loads the TLS
certificates; :mod:`ui.floor.tokens` keeps the device tokens' digests.
"""
