"""``python -m kg``: the ``kg`` command."""

import sys

from .cli import main

sys.exit(main())
