"""`python -m tinygrad_norm ...`: see `tinygrad_norm/cli/`."""

from .cli import main

raise SystemExit(main())
