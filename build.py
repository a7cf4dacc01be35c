#!/usr/bin/env python3
"""Build the errdex site: ``python build.py [build|check|serve] …`` (see ``--help``)."""

import sys

from errdex.cli import main

if __name__ == "__main__":
    sys.exit(main())
