"""Words the build and the command line say of numbers."""


def count(number: int, noun: str) -> str:
    """``1 error``, ``2 errors``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
