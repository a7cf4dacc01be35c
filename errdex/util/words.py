"""Words the build and the command line say of numbers."""


def count(number: int, noun: str) -> str:
    """``1 error``, ``2 errors``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def listed(names: list[str], most: int = 5) -> str:
    """``names`` joined by commas, the first ``most`` of them and a count of the rest:
    ``a.yaml, b.yaml and 3 more``."""
    shown = ", ".join(names[:most])
    rest = len(names) - most
    return f"{shown} and {rest} more" if rest > 0 else shown
