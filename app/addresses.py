"""Which network a request comes from, for limits per address. The address is the connection's peer
(`request.client.host`): forwarded headers are trusted only when the server is started with `--proxy-headers`,
and then only from the proxies uvicorn is told to trust (FORWARDED_ALLOW_IPS, default 127.0.0.1), because
anyone can write an X-Forwarded-For header.

An IPv6 client usually holds a whole /64 and can pick any address in it, so IPv6 addresses count per /64."""

from __future__ import annotations

import ipaddress

from starlette.requests import HTTPConnection

IPV6_CLIENT_PREFIX = 64
UNKNOWN = "unknown"


def client_address(connection: HTTPConnection) -> str:
    """The key this request's limits are counted under."""
    return address_key(connection.client.host if connection.client is not None else None)


def address_key(host: str | None) -> str:
    if not host:
        return UNKNOWN
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # not an IP (a Unix socket path, a test client's name): count it as it is
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False))
    return str(address)
