"""`python -m ghapp.cli`: the `hindsight` command."""

from __future__ import annotations

import sys

from ghapp.cli.commands import main

sys.exit(main())
