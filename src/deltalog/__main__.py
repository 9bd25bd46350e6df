"""``python -m deltalog``: the command line."""

import sys

from deltalog.cli import main

sys.exit(main())
