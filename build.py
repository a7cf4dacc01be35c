#!/usr/bin/env python3
"""Build the errdex site: ``python build.py [build|check|serve] …`` (see ``--help``)."""

from errdex.cli import run

if __name__ == "__main__":
    run()
