"""Benchmarks for errdex: synthetic record corpora and the pastes users search with.

- ``benchmarks.corpus``: ``generate(n, seed)`` makes realistic error records;
  ``write_content`` writes them as an errdex content folder; ``markdown_page`` renders
  one record as a Markdown page for other static site generators.
- ``benchmarks.pastes``: ``make_paste(record, kind, rng)`` turns a record into what a
  user would paste (bare message, traceback, log lines …); ``foreign_paste(rng)`` is an
  error from other software that must not match.

Everything is deterministic for a given seed or ``random.Random``.
"""
