"""errdex on Windows, as far as Linux can show it."""

from __future__ import annotations

import os

import pytest

from errdex import parallel


def test_without_fork_a_big_site_is_read_and_rendered_in_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Windows has no fork: a worker would start without what the build has loaded."""

    assert parallel.jobs_for(10_000, 4) == 4
    monkeypatch.delattr(os, "fork")
    assert parallel.jobs_for(10_000, 4) == 1
