"""What the routes share: the service's hub, the bearer token and the client's address."""

from __future__ import annotations

from typing import Any, Optional

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..hub import Hub

__all__ = ["hub", "token", "address", "table_options"]

_bearer = HTTPBearer(auto_error=False, description="the token of an account, a seat or a spectator")


def hub(request: Request) -> Hub:
    """The running service's :class:`~tawla.service.hub.Hub`."""
    return request.app.state.hub


def token(cred: Optional[HTTPAuthorizationCredentials] = Depends(_bearer)) -> Optional[str]:
    """The request's bearer token, or None."""
    return cred.credentials if cred is not None else None


def table_options(body: Any) -> dict[str, Any]:
    """A room's or a seek's body as a dict, ``turn_seconds`` left out when the client did not
    send it (the house's default holds) and a whole number of seconds as an int."""
    data = body.model_dump()
    if "turn_seconds" not in body.model_fields_set:
        del data["turn_seconds"]
    elif data["turn_seconds"] is not None and float(data["turn_seconds"]).is_integer():
        data["turn_seconds"] = int(data["turn_seconds"])
    return data


def address(request: Request) -> str:
    """The client's address (the peer of the connection)."""
    return request.client.host if request.client is not None else ""
