"""The GitHub loop: the issues that paste an error, what an issue's text pastes, and
``errdex triage``."""
