"""`python -m duelo.benchmarks [--quick]`: the same as `duelo bench`."""

import sys

from duelo.cli import main

raise SystemExit(main(["bench", *sys.argv[1:]]))
