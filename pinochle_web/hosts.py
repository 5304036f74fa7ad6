"""Which ``Host`` headers the server answers: its defence against DNS rebinding, on every bind.

A page of another site can point a name it controls at this machine's address and then talk to
the server as if it were its own; the browser then sends that name in the ``Host`` header. The
server answers only the names it is reached by: the address or name it is bound to (and, bound to
a name, the addresses that name resolves to), the loopback names when it is bound to a loopback
address, this machine's own names when it is bound to every address (``0.0.0.0``, ``::``), and
the names given with ``--allow-host``; the application (:class:`pinochle_web.app.HostCheck`)
refuses any other ``Host`` with a 400 ``{"error": ...}`` answer. This module needs no web
framework: the command line works out the names before the application loads.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("", "0.0.0.0", "::")


def host_name(header: str) -> str | None:
    """The name or address of a ``Host`` header, lower case and without brackets or port; None
    for a header that is not a host (a bad port, brackets around what is not an IPv6 address)."""
    try:
        parts = urlsplit(f"//{header}")
        parts.port  # noqa: B018 -- checks the port: ValueError for one that is not a number 0..65535
    except ValueError:
        return None
    if parts.username is not None or parts.path or parts.query or parts.fragment or not parts.hostname:
        return None
    return normal(parts.hostname)


def normal(name: str) -> str:
    """A host name as compared: lower case, no final dot; an IP address in its shortest form."""
    name = name.lower().rstrip(".")
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name


def addresses_of(name: str) -> set[str]:
    """The addresses ``name`` resolves to (none if it does not resolve)."""
    try:
        found = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return set()
    return {str(info[4][0]).split("%")[0] for info in found}


def is_loopback(bind: str) -> bool:
    """Whether a bind address (or name) reaches this machine only: a loopback address, or a name
    that resolves to loopback addresses only."""
    if bind == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind).is_loopback
    except ValueError:
        addresses = addresses_of(bind)
        return bool(addresses) and all(ipaddress.ip_address(address).is_loopback for address in addresses)


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The ``Host`` names a server bound to ``bind`` answers, with ``extra`` (``--allow-host``)."""
    names = {bind.lower()} - set(WILDCARDS)
    if bind in WILDCARDS:
        machine = {socket.gethostname().lower(), socket.getfqdn().lower()}
        names |= set(LOOPBACK_NAMES) | machine | {a for name in machine for a in addresses_of(name)}
    else:
        try:
            ipaddress.ip_address(bind)
        except ValueError:  # a name: it and what it resolves to
            names |= addresses_of(bind)
        if is_loopback(bind):
            names |= set(LOOPBACK_NAMES)
    return tuple(sorted({normal(name) for name in (*names, *extra)}))


def check_host_name(text: str) -> str:
    """``text`` if it is a host name or IP address that a ``Host`` header can carry (``ValueError``
    saying what is wrong otherwise): what ``--allow-host`` takes."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?\.?", text):
        raise ValueError(f"{text!r} is not a host name or IP address (letters, digits, '-' and '.'; no port, no '*')")
    return normal(text)
