"""Each template compiled once in a test process, whatever cache folder a build names.

``run`` gives each test a cache folder of its own and many builds name none, so every
small build would compile the bundled templates again: about 0.1 s of a 0.2 s build of
the bundled content. Jinja keys a template by its name and file and checks its source,
so a template a test writes is still compiled.
"""

from __future__ import annotations

import functools
from typing import Any

import jinja2
import jinja2.bccache


class CompiledOnce(jinja2.BytecodeCache):
    """Compiled templates kept in memory, by Jinja's key, with their source's checksum."""

    def __init__(self) -> None:
        self.kept: dict[str, tuple[str, Any]] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        checksum, code = self.kept.get(bucket.key, ("", None))
        if checksum == bucket.checksum:
            bucket.code = code

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.kept[bucket.key] = (bucket.checksum, bucket.code)


def sharing(make_env: Any) -> Any:
    """``render.make_env``, with every environment it makes given one ``CompiledOnce``."""
    compiled = CompiledOnce()

    @functools.wraps(make_env)  # ``__wrapped__`` is errdex's own
    def make(*args: Any, **kwargs: Any) -> jinja2.Environment:
        env = make_env(*args, **kwargs)
        env.bytecode_cache = compiled
        return env

    return make
