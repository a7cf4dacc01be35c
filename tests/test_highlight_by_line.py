"""Excerpts highlighted a line or a run of lines at a time (as updates and the cache do)
give the bytes of each excerpt highlighted whole."""

from __future__ import annotations

import os
from pathlib import Path

from benchmarks import corpus
from errdex.site import highlight


def test_excerpts_highlighted_line_by_line_match_highlighting_them_whole() -> None:

    records = corpus.generate(300, seed=5)
    excerpts = [r["source"]["excerpt"]["code"] for r in records if r["source"].get("excerpt")]
    excerpts += [
        'def f(x):\n    if x:\n        raise ValueError(f"{x!r} is bad")\n'
        '    return {"a": [1, 2]}\n',
        "@decorator\nclass A(B, metaclass=M):\n    x: int = 0x1F  # note\n",
        "    except (KeyError, IndexError) as exc:\n        raise RuntimeError('no') from exc\n",
    ]
    lexer = highlight._lexer(suffix=".py")
    assert lexer is not None
    highlighter = highlight.Highlighter()
    checked = 0
    for code in excerpts:
        if highlight._SPANS_LINES.search(code):
            continue
        whole = highlight._pygmentize(code, lexer).split("\n")[: len(code.splitlines())]
        assert highlighter._by_line(code.splitlines(), ".py") == whole, code
        checked += 1
    assert checked > 250


def test_excerpts_with_strings_over_lines_highlighted_by_runs_match_them_whole() -> None:
    """Runs of lines (a docstring whole, other lines alone, each cached) give the bytes
    of the whole excerpt highlighted at once, on windows of real code cut anywhere."""
    import random

    import pygments

    from errdex.records.model import source_lines

    rng = random.Random(11)
    files = sorted(Path(os.path.dirname(pygments.__file__)).rglob("*.py"))
    excerpts = [
        '    """Starts in a docstring\n    and ends here."""\n    x = 1\n',
        'def f():\n    """A docstring with \\""" an escaped quote,\n    and \'\'\' inside."""\n'
        "    raise ValueError('no')\n",
        'x = \'"""\'  # a one-line string that holds triple quotes\ny = 2\n',
        '# a comment with """ in it\ny = """two\nlines"""\nz = 3\n',
        'r = r"""raw\\"""\ns = f"""{x}\nmore"""\n',
        "def \\\n  f(): pass\nclass\nA: pass\n",
        'a = 1\n#!/usr/bin/env python\nb = """x\ny"""\n',
        # a raw docstring is read like any docstring: to the next three quotes
        'def f():\n    r"""Matches \\d+ and \\""" ends it\n    here."""\n    raise E()\n',
        '    Rb"""a\n    b""" + x  # then code\nmatch = 1\n',
        '    x = r"""not a docstring \\"""\n    still"""\n',
        '    fr"""formatted {x}\n    raw"""\n',
    ]
    for path in rng.sample(files, 60):
        lines = path.read_text(encoding="utf-8").split("\n")
        for _ in range(4):
            start = rng.randrange(max(1, len(lines) - 30))
            excerpts.append("\n".join(lines[start : start + rng.randrange(3, 40)]) + "\n")
    lexer = highlight._lexer(suffix=".py")
    assert lexer is not None
    highlighter = highlight.Highlighter()
    by_runs = 0
    for code in excerpts:
        lines = source_lines(code)
        whole = highlight._pygmentize(code, lexer).split("\n")[: len(lines)]
        assert [str(h) for h in highlighter.highlight_lines(code, "x.py")] == whole, code
        by_runs += highlight._SPANS_LINES.search(code) is not None and (
            highlight._runs(lines) is not None
        )
    assert by_runs > 60


def test_the_quick_look_for_a_line_that_carries_on_agrees_with_the_pattern() -> None:
    """``_carries_on`` skips the pattern where it cannot match: on every line of
    Pygments' own code, and on lines made to end each way, it answers as the pattern."""

    import pygments

    lines = [
        "x = 1 \\",
        "    def",
        "class\t",
        "from  ",
        "import",
        "match",
        'f"{x',
        'rb"{',
        "y = {1: 2}",
        "a_def",
        "matches",
    ]
    for path in sorted(Path(os.path.dirname(pygments.__file__)).rglob("*.py"))[:80]:
        lines += path.read_text(encoding="utf-8").split("\n")
    found = 0
    for line in lines:
        expected = highlight._CARRIES_ON.search(line) is not None
        assert highlight._carries_on(line) == expected, line
        found += expected
    assert found > 10
    # And so does the look for an excerpt that spans lines, on excerpts cut from them.
    spans = []
    for start in range(0, len(lines), 7):
        code = "\n".join(lines[start : start + 9])
        expected = highlight._SPANS_LINES.search(code) is not None
        assert highlight._spans_lines(code) == expected, code
        spans.append(expected)
        assert highlight._spans_lines("#!/bin/sh\n" + code)
    assert 100 < sum(spans) < len(spans) - 100


def test_a_raw_docstring_is_cut_into_runs_like_any_other() -> None:
    """Raw docstrings are common (transformers has hundreds around its raises): their
    excerpts are highlighted a run at a time, not each whole, and still match."""
    from errdex.records.model import source_lines

    code = 'def f():\n    r"""Raw \\d.\n\n    More."""\n    raise X()\n'
    assert highlight._runs(source_lines(code)) == [(0, 1), (1, 4), (4, 5)]
    assert highlight._runs(source_lines('    y = f"""{a}\n    b"""\n')) is None
    assert highlight._runs(source_lines('    y = r"""a\n    b"""\n')) is None


def test_a_docstring_excerpt_is_highlighted_whole() -> None:
    code = 'def f():\n    """A docstring\n    over lines."""\n    raise X()\n'
    lines = highlight.Highlighter().highlight_lines(code, "m.py")
    assert "<t-sd>" in lines[2]  # the second line of the docstring is still a string


def test_a_replacement_field_left_open_does_not_colour_other_lines() -> None:
    # Python 3.12 lets an f-string's replacement field run over lines: the next line is
    # inside it. Such an excerpt is highlighted whole, and lines highlighted before it do
    # not change how it looks.
    open_field = 'msg = f"bad {\n    value!r}"\nraise ValueError(msg)\n'
    seen = highlight.Highlighter()
    seen.highlight_lines('    value!r}"\nraise ValueError(msg)\n', "m.py")
    after = seen.highlight_lines(open_field, "m.py")
    alone = highlight.Highlighter().highlight_lines(open_field, "m.py")
    assert after == alone
    assert "<t-k>raise</t-k>" in alone[2]


def test_an_attributes_dot_is_plain_text_and_other_operators_keep_their_colour() -> None:
    (line,) = highlight.Highlighter().highlight_lines("total = self.size * count\n", "a.py")
    assert "self</t-bp>.size" in line
    assert "<t-o>=</t-o>" in line and "<t-o>*</t-o>" in line


CUT_DOCSTRING = '''\
repo: example/project
exception: ValueError
message: "Give size or shape, not both"
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: src/project/layers.py
  line: 14
  excerpt:
    start: 10
    code: |2
                  The layer's shape, as "rows, columns".
          """
          if size is not None and shape is not None:
              # Both would set the same weights.
              raise ValueError("Give size or shape, not both")
          return Layer(size or shape)
'''


def test_an_excerpt_that_starts_inside_a_docstring_shows_its_raise_as_code(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """Cut from a function whose docstring began above it, the excerpt's first lines
    are the docstring's end: they show as a string, and the code after them as code, the
    raise with its keyword, not as one long string."""
    from conftest import make_content, soup

    content = make_content(tmp_path, {"layers.yaml": CUT_DOCSTRING})
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    page = next((out / "errors").glob("*/index.html"))
    code = soup(page).select_one(".code-view pre:not(.gutter) code")
    assert code is not None
    lines = code.decode_contents().split("\n")
    docstring, raised, after = lines[0], lines[4], lines[5]
    assert docstring.startswith("<t-sd>") and "The layer" in docstring
    assert "<t-k>raise</t-k>" in raised, raised
    assert "<t-k>return</t-k>" in after, after
    assert "<t-k>if</t-k>" in lines[2] and "<t-c1>" in lines[3]


def test_a_docstring_whole_in_the_excerpt_is_read_as_it_is() -> None:
    """An excerpt that opens and closes its docstring (or has none) is read from its
    first line, as before: only a raise found inside a string moves the reading."""
    from errdex.records.model import source_lines

    whole = 'def f(x):\n    """Checks x."""\n    if not x:\n        raise ValueError("no")\n'
    assert highlight._opened_above(source_lines(whole), 3) is None
    two = '    """Returns it.\n    """\n    x = 1\n    raise E("a")\n    """Next."""\n'
    assert highlight._opened_above(source_lines(two), 3) is None
    cut = "        the end of a docstring.\n    '''\n    raise E('a')\n"
    assert highlight._opened_above(source_lines(cut), 2) == "'''"
