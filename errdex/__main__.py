"""python -m errdex: the errdex command."""

from .cli import run

run()
