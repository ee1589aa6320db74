"""The routes of the JSON API under ``/v1``, one router per resource: positions (no room
needed), accounts, rooms (with their socket and the tables' list), ratings, seeks (quick
pairing) and operations (health, metrics). :func:`tawla.service.app.create_app` includes them."""

from __future__ import annotations

from .accounts import router as accounts
from .operations import router as operations
from .positions import router as positions
from .ratings import router as ratings
from .rooms import router as rooms
from .seeks import router as seeks

__all__ = ["ROUTERS"]

ROUTERS = (operations, positions, accounts, rooms, ratings, seeks)
"""Every router, in the order the application includes them."""
