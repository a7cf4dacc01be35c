"""The record model and its checks: finding and reading record files, validating them,
typing and linking them, and the problems they have."""
