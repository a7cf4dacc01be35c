"""Small tools the rest shares: processes, progress lines, HTTP with a deadline, pickling."""
