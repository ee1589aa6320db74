"""Alembic's environment of the service database: the revisions run on the connection that
:func:`tawla.service.migrations.upgrade` gives, in its transaction."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, transactional_ddl=True, render_as_batch=True)
context.run_migrations()
