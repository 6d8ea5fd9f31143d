"""Whether a server's host name is one the resolver can take (the PostgreSQL server, the
register's online service). Python's resolver refuses an empty label, a label over 63
bytes or a name over 253 bytes with a UnicodeError, which is no OSError: told here,
when the address is read, it is a code instead of a traceback at the first connection."""

from __future__ import annotations

import ipaddress

__all__ = ["host_name_refusal"]


def host_name_refusal(host: str) -> str | None:
    """None for an IP address or a DNS name the resolver takes (RFC 1035 2.3.4: labels
    of 1 to 63 bytes, 253 bytes in all without the final dot; RFC 5890 for names that
    are not ASCII); else what is wrong with it, in English, for the log."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return None
    name = host[:-1] if host.endswith(".") else host
    try:
        encoded = name.encode("idna")
    except UnicodeError:
        encoded = b""
    labels = encoded.split(b".")
    if not encoded or len(encoded) > 253 or not all(0 < len(label) <= 63 for label in labels):
        return "the host is not a name the resolver takes (labels of 1-63 bytes, 253 in all)"
    if any(byte <= 0x20 or byte == 0x7F for byte in encoded):
        return "the host holds a space or a control character"
    return None
