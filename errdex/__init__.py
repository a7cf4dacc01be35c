"""errdex: build a static error-reference site from YAML error records."""

__version__ = "0.1.0"
