"""``python -m kg.cli``: the ``kg`` command."""

import sys

from . import main

sys.exit(main())
