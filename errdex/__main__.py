"""python -m errdex: the errdex command."""

from errdex.cli import run

run()
