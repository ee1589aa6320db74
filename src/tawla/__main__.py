"""``python -m tawla``: the ``tawla`` command (:func:`tawla.cli.main`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
