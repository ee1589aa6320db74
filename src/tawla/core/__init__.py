"""The value layer: what every other layer shares and that needs no rules.

:mod:`~tawla.core.layout` (the packed row), :mod:`~tawla.core.geometry` (the two board
geometries, the row flip), :mod:`~tawla.core.dice` (dice, rolls), :mod:`~tawla.core.steps`
(:class:`Step` and move notation), :mod:`~tawla.core.moves` (:class:`Move`) and
:mod:`~tawla.core.results` (:class:`GameResult`, :class:`ResultKind`). Nothing here imports
a layer above :mod:`tawla.errors`.
"""
