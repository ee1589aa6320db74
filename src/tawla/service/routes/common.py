"""What the routes share: the service's hub, the bearer token and the client's address."""

from __future__ import annotations

from typing import Optional

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..hub import Hub

__all__ = ["hub", "token", "address"]

_bearer = HTTPBearer(auto_error=False, description="the token of an account, a seat or a spectator")


def hub(request: Request) -> Hub:
    """The running service's :class:`~tawla.service.hub.Hub`."""
    return request.app.state.hub


def token(cred: Optional[HTTPAuthorizationCredentials] = Depends(_bearer)) -> Optional[str]:
    """The request's bearer token, or None."""
    return cred.credentials if cred is not None else None


def address(request: Request) -> str:
    """The client's address (the peer of the connection)."""
    return request.client.host if request.client is not None else ""
