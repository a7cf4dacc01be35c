"""Values a build refuses: the site's base URL (site.yaml and --base-url), names that
become folders (case, Windows device names, reserved characters), the length of output
paths, control characters in any value, and a message too long for search. Each class is
pinned by examples and by a property: a build either stops with ``path:line: message
[code]`` and exit 1, or gives a site without the bad thing."""

from __future__ import annotations

import json
import re
import tempfile
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from bs4 import BeautifulSoup
from conftest import MINIMAL, SITE_YAML, broken_links, make_content, snapshot, soup
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from test_hostile import problem_lines, same_file

from errdex.records.codes import CODES
from errdex.records.model import SEARCH_MESSAGE_LIMIT
from errdex.records.validate import MAX_OUTPUT_PATH, REFUSED_CHARACTERS

# The run fixture is shared by the examples of a test: each builds into a folder of its own.
SETTINGS = settings(
    max_examples=15,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
Run = Callable[..., Any]


# --- Helpers ------------------------------------------------------------------------------


def quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar, every character that is not printable
    written as an escape: how a user (or yaml.dump) gets control characters into a value."""
    out = []
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char.isprintable() and not 0xD800 <= code <= 0xDFFF:
            out.append(char)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


# Every text field of a record, each on a line of its own: (field, line, value).
FIELDS = [
    ("repo", 1, "example/project"),
    ("exception", 2, "ValueError"),
    ("message", 3, "size={size} must be positive"),
    ("title", 4, "A title"),
    ("meaning", 5, "What it *means*."),
    ("source.path", 8, "src/project/config.py"),
    ("source.function", 10, "check"),
    ("source.condition", 11, "size <= 0"),
    (
        "source.excerpt.code",
        14,
        "def check(size):\n    if size <= 0:\n        raise ValueError(x)\n",
    ),
    ("solutions", 16, "Pass a positive size."),
    ("example_fix.lang", 18, "python"),
    ("example_fix.code", 19, "check(1)\n"),
    ("example_fix.caption", 20, "Call it so"),
    ("when.trigger", 22, "A size of zero."),
    ("when.situations", 23, "Often a config typo."),
    ("related", 25, "Some other message that matches nothing"),
    ("analysis.by", 27, "a person"),
]
FULL_RECORD = """\
repo: {repo}
exception: {exception}
message: {message}
title: {title}
meaning: {meaning}
source:
  commit: "0123456789abcdef0123456789abcdef01234567"
  path: {source.path}
  line: 3
  function: {source.function}
  condition: {source.condition}
  excerpt:
    start: 1
    code: {source.excerpt.code}
solutions:
  - {solutions}
example_fix:
  - lang: {example_fix.lang}
    code: {example_fix.code}
    caption: {example_fix.caption}
when:
  trigger: {when.trigger}
  situations: {when.situations}
related:
  - {related}
analysis:
  by: {by}
  date: 2026-01-01
"""
SITE_FIELDS = [("title", 1, "Test errors"), ("repository", 3, "example/site")]
SITE_FIELDS += [("description", 4, "A site.")]


def full_record(**values: str) -> str:
    """The record with every field, ``values`` (by field name) replacing the defaults."""
    fields = {name: quoted(values.get(name, value)) for name, _, value in FIELDS}
    fields["by"] = fields.pop("analysis.by")
    text = FULL_RECORD
    for name, value in fields.items():
        text = text.replace("{" + name + "}", value)
    return text


def site_yaml(base_url: str = "https://errors.example.test/docs/", **values: str) -> str:
    given_values = {name: values.get(name, value) for name, _, value in SITE_FIELDS}
    return (
        f"title: {quoted(given_values['title'])}\n"
        f"base_url: {quoted(base_url)}\n"
        f"repository: {quoted(given_values['repository'])}\n"
        f"description: {quoted(given_values['description'])}\n"
    )


def content_in(root: Path, records: dict[str, str], site: str = SITE_YAML) -> Path:
    content = root / "content"
    (content / "errors").mkdir(parents=True, exist_ok=True)
    (content / "site.yaml").write_text(site, encoding="utf-8")
    for name, text in records.items():
        path = content / "errors" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return content


def errors_of(result: Any) -> list[re.Match[str]]:
    """The error lines of a run that stopped: exit 1, no traceback, nothing but
    ``path:line: message`` lines and errdex's own summary."""
    assert result.code == 1, result.err[-3000:]
    assert "Traceback" not in result.err
    problems, other = problem_lines(result.err)
    assert other == [], other
    return [p for p in problems if not p["message"].startswith("warning: ")]


def built(run: Run, content: Path, out: Path, *extra: str) -> Any:
    result = run("build", "--content", content, "--out", out, *extra)
    assert result.code == 0, result.err[-3000:]
    assert "Traceback" not in result.err
    return result


def output_paths(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())


# --- Item 5: the base URL --------------------------------------------------------------

URL_ATTRIBUTES = ("href", "src", "action", "data-root")


def off_site_urls(page: Path, base_url: str, served_at: str) -> list[str]:
    """Every URL a page loads or links to, resolved where a host serves it, that leaves
    the site's own origin and path. Absolute URLs written as such (GitHub) are left out:
    the question is where the page's own relative addresses lead."""
    base = urlsplit(base_url)
    html = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    found = []
    for tag in html.find_all(True):
        for name in URL_ATTRIBUTES:
            value = tag.get(name)
            if not isinstance(value, str) or re.match(r"^[a-z][a-z0-9+.-]*:", value, re.I):
                continue
            target = urlsplit(urljoin(served_at, value))
            same = (target.scheme, target.netloc) == (base.scheme, base.netloc)
            if not same or not unquote(target.path).startswith(unquote(base.path)):
                found.append(f"<{tag.name} {name}={value!r}> leads to {target.geturl()}")
    return found


def test_a_base_url_whose_path_starts_another_host_is_refused(tmp_path: Path, run: Run) -> None:
    """Item 5: ``//attacker.invalid/`` in the path made 404.html load its scripts from
    that host; it is refused at its line, and the last site stays as it was."""
    good = content_in(tmp_path / "good", {"a.yaml": MINIMAL})
    out = tmp_path / "out"
    built(run, good, out)
    before = snapshot(out)
    bad = content_in(
        tmp_path / "bad",
        {"a.yaml": MINIMAL},
        site_yaml("https://example.com//attacker.invalid/"),
    )
    (error,) = errors_of(run("build", "--content", bad, "--out", out))
    assert same_file(error["path"], bad / "site.yaml")
    assert error["line"] == "2"
    assert "base_url" in error["message"]
    assert "https://example.com/attacker.invalid/" in error["message"]  # the fix, suggested
    assert error["message"].endswith("[E205]")
    assert snapshot(out) == before


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)//",
        "example.com/docs",
        "https://example.com//attacker.invalid/",
        "//attacker.invalid/",
        "https://user@attacker.invalid/",
        "https://example.com/docs?x=1",
        "https://example.com/docs#top",
        "https://example.com/a/../b/",
        "https://example.com/a/%2e%2e/b/",
        "https://example.com\\@attacker.invalid/",
        "https://example.com/\t/attacker.invalid/",
        "ftp://example.com/",
        "https://example.com:99999/",
        "",
    ],
)
def test_base_url_option_is_checked_like_the_config(tmp_path: Path, run: Run, url: str) -> None:
    """Item 5: ``--base-url`` reached canonical links and every ``url`` of the JSON
    unchecked; it is refused with the option named, exit 1, nothing written."""
    content = content_in(tmp_path, {"a.yaml": MINIMAL})
    out = tmp_path / "out"
    result = run("build", "--content", content, "--out", out, "--base-url", url)
    assert errors_of(result) == []
    (line,) = [line for line in result.err.splitlines() if "--base-url" in line]
    assert line.startswith(f"errdex: --base-url {url!r} ") and line.count("[E205]") == 1
    assert not out.exists()


def test_a_valid_base_url_option_is_used_with_a_slash_added(tmp_path: Path, run: Run) -> None:
    content = content_in(tmp_path, {"a.yaml": MINIMAL})
    out = tmp_path / "out"
    built(run, content, out, "--base-url", "https://mirror.example.test/errors")
    index = json.loads((out / "api" / "errors.json").read_text(encoding="utf-8"))
    urls = [e["url"] for e in index["errors"]]
    assert urls and all(u.startswith("https://mirror.example.test/errors/errors/") for u in urls)
    assert (
        off_site_urls(
            out / "404.html",
            "https://mirror.example.test/errors/",
            "https://mirror.example.test/errors/no/such/page",
        )
        == []
    )


# Valid base URLs: a host (name, IPv4, IPv6, international), a port, a path of segments
# a URL may hold as they are (quotes and brackets too: pages escape them), an escape.
_label = st.from_regex(r"\A[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?\Z")
hosts = st.one_of(
    st.lists(_label, min_size=1, max_size=3).map(".".join),
    st.sampled_from(["127.0.0.1", "[::1]", "localhost", "bücher.example", "EXAMPLE.test."]),
)
segments = st.one_of(
    st.text("abcXYZ019-._~!$&'()*+,;=:@\"<>", min_size=1, max_size=8).filter(
        lambda s: s not in (".", "..")
    ),
    st.sampled_from(["%20", "%C3%A9", "docs", "v1.2"]),
)


@st.composite
def base_urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["https", "http", "HTTPS"]))
    port = draw(st.one_of(st.just(""), st.integers(1, 65535).map(lambda p: f":{p}")))
    path = "".join("/" + s for s in draw(st.lists(segments, max_size=3)))
    slash = draw(st.sampled_from(["", "/"]))
    return f"{scheme}://{draw(hosts)}{port}{path}{slash}"


@SETTINGS
@given(url=base_urls())
@example(url="https://errors.example.test/hostile'\"<b>/")
@example(url="http://[::1]:8000")
def test_any_valid_base_url_builds_a_site_that_stays_on_its_origin(run: Run, url: str) -> None:
    """Property (item 5): a valid base URL is taken, with a slash added when it has none;
    the 404 page, served at any missing address, loads and links only within the site."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        content = content_in(root, {"a.yaml": MINIMAL}, site_yaml(url))
        out = root / "out"
        built(run, content, out)
        # Scheme and host as browsers compare them (lowercase), a slash at the end.
        scheme, rest = url.split("://", 1)
        host, slash, path = rest.partition("/")
        normal = f"{scheme.lower()}://{host.lower()}{slash}{path}"
        normal = normal if normal.endswith("/") else normal + "/"
        index = json.loads((out / "api" / "errors.json").read_text(encoding="utf-8"))
        assert all(e["url"].startswith(normal) for e in index["errors"])
        for missing in ("no/such/page", "errors/0000000000000000/deep/"):
            assert off_site_urls(out / "404.html", normal, normal + missing) == []


DEFECTS = [
    lambda u: "javascript:alert(1)//" + u,
    lambda u: u.replace("://", ":", 1),
    lambda u: u.split("://", 1)[1],
    lambda u: "ftp" + u[u.index(":") :],
    lambda u: _at_path(u, "//attacker.invalid/"),
    lambda u: _at_path(u, "/../"),
    lambda u: _at_path(u, "/./"),
    lambda u: _at_path(u, "/%2E%2e/"),
    lambda u: _at_path(u, "\\"),
    lambda u: _at_path(u, " "),
    lambda u: _at_path(u, "\n"),
    lambda u: _at_path(u, "\x00"),
    lambda u: _at_path(u, "%g1"),
    lambda u: u + "?q=1",
    lambda u: u + "#top",
    lambda u: u.replace("://", "://user:pw@", 1),
    lambda u: u.split("://", 1)[0] + ":///" + u.split("://", 1)[1].partition("/")[2],
]


def _at_path(url: str, text: str) -> str:
    scheme, rest = url.split("://", 1)
    host, _, path = rest.partition("/")
    return f"{scheme}://{host}/{text}{path}"


@SETTINGS
@given(url=base_urls(), defect=st.sampled_from(range(len(DEFECTS))))
def test_any_broken_base_url_is_refused_by_name(run: Run, url: str, defect: int) -> None:
    """Property (item 5): a base URL with any of the defects a browser could read as
    another site is refused: at site.yaml's line, and as --base-url, by name."""
    bad = DEFECTS[defect](url)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        content = content_in(root, {"a.yaml": MINIMAL}, site_yaml(bad))
        errors = errors_of(run("check", "--content", content, "--out", root / "out"))
        # A NUL is refused as a character no value may hold, before it is read as a URL.
        assert [e["line"] for e in errors] == ["2"], errors
        assert errors[0]["message"][-6:] in ("[E205]", "[E204]"), errors
        assert same_file(errors[0]["path"], content / "site.yaml")
        fine = content_in(root / "fine", {"a.yaml": MINIMAL})
        result = run("build", "--content", fine, "--out", root / "out", "--base-url", bad)
        assert errors_of(result) == []
        assert f"errdex: --base-url {bad!r} " in result.err
        assert not (root / "out").exists()


# --- Item 7: a message too long for search ------------------------------------------------


def test_a_message_longer_than_search_reads_is_warned_about(tmp_path: Path, run: Run) -> None:
    words = " ".join(f"word{n} {{value{n}}}" for n in range(60_000 // 2))
    record = MINIMAL.replace('"size={size} must be positive"', quoted(words))
    content = content_in(tmp_path, {"long.yaml": record})
    result = run("check", "--content", content, "--out", tmp_path / "out")
    assert result.code == 0, result.err[-2000:]
    problems, _ = problem_lines(result.err)
    (warning,) = [p for p in problems if "[W308]" in p["message"]]
    assert same_file(warning["path"], content / "errors" / "long.yaml")
    assert warning["line"] == "3"
    assert f"first {SEARCH_MESSAGE_LIMIT:,}" in warning["message"]
    strict = run("check", "--content", content, "--out", tmp_path / "out", "--strict")
    assert strict.code == 1


@pytest.mark.parametrize(
    ("literal", "placeholders", "warned"),
    [
        (SEARCH_MESSAGE_LIMIT, 0, False),
        (SEARCH_MESSAGE_LIMIT + 1, 0, True),
        (SEARCH_MESSAGE_LIMIT - 2, 2, False),
        (SEARCH_MESSAGE_LIMIT - 2, 3, True),
    ],
)
def test_the_search_limit_counts_a_placeholder_as_one(
    tmp_path: Path, run: Run, literal: int, placeholders: int, warned: bool
) -> None:
    message = "x" * literal + "".join(f"{{p{n}}}" for n in range(placeholders))
    record = MINIMAL.replace('"size={size} must be positive"', quoted(message))
    content = content_in(tmp_path, {"edge.yaml": record})
    result = run("check", "--content", content, "--out", tmp_path / "out")
    assert result.code == 0, result.err[-2000:]
    assert ("[W308]" in result.err) is warned


def test_the_code_pages_state_the_limits_the_checks_use() -> None:
    assert f"{SEARCH_MESSAGE_LIMIT:,} characters" in CODES["W308"].text
    assert f"{MAX_OUTPUT_PATH} bytes" in CODES["E206"].text


# --- Item 16: names that become folders -------------------------------------------------

_DEVICE = re.compile(r"(CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³]|CONIN\$|CONOUT\$)", re.I)


def windows_problems(out: Path) -> list[str]:
    """Output paths that Windows cannot write, or that macOS and Windows would write
    into one file with another."""
    found = []
    seen: dict[str, str] = {}
    for rel in output_paths(out):
        for part in rel.split("/"):
            if (
                re.search(r'[<>:"|?*\x00-\x1f]', part)
                or part.endswith((".", " "))
                or _DEVICE.fullmatch(part.partition(".")[0].rstrip(" "))
                or part.lower() == ".git"
                or len(part.encode()) > 255
            ):
                found.append(f"{rel}: {part!r}")
        key = unicodedata.normalize("NFD", unicodedata.normalize("NFD", rel).casefold())
        if key in seen:
            found.append(f"{rel} and {seen[key]} are one file there")
        seen[key] = rel
    return found


def twice(name: str, record: str) -> dict[str, str]:
    """The record, and a second one of its file, exception and options in other words: a
    file, exception or option gets a page listing its errors only when it has two."""
    return {f"{name}.yaml": record, f"{name}-2.yaml": record.replace(" must be ", " must not be ")}


WINDOWS_NAMES = {
    **twice(
        "devices",
        MINIMAL.replace("example/project", "nul/aux.")
        .replace("ValueError", "con.Error")
        .replace("src/project/config.py", '"lib/aux.py/COM1.tar.gz/LPT¹/CON .py"')
        .replace("must be positive", "must be positive, see --aux and --com1"),
    ),
    **twice(
        "reserved",
        MINIMAL.replace(
            "src/project/config.py", '"src/a:b?.py/x<y>|z*/q\\"uote/.git/dot./space /end"'
        ),
    ),
    **twice("plain", MINIMAL.replace("must be positive", "must be small")),
}


def test_names_windows_cannot_hold_build_to_folders_it_can(tmp_path: Path, run: Run) -> None:
    """Item 16: ``CON``, ``aux.py``, ``.git``, ``a:b`` and names ending in a dot became
    folders Windows cannot make (or, for a dot, makes as another name); now each is
    written so every system holds it, and every link still leads to its page."""
    content = content_in(tmp_path, WINDOWS_NAMES)
    out = tmp_path / "out"
    built(run, content, out)
    assert windows_problems(out) == []
    assert broken_links(out) == []
    paths = output_paths(out)
    assert "repos/nul_/aux_._/index.html" in paths
    assert "exceptions/con_.Error/index.html" in paths
    assert "options/aux_/index.html" in paths and "options/com1_/index.html" in paths
    assert "repos/nul_/aux_._/files/lib/aux_.py/COM1_.tar.gz/LPT¹_/CON _.py/index.html" in paths
    assert (
        "repos/example/project/files/src/a%3Ab%3F.py/x%3Cy%3E%7Cz%2A/q%22uote/.git_/dot._/"
        "space _/end/index.html" in paths
    )
    # A name Windows holds keeps its address.
    assert "repos/example/project/files/src/project/config.py/index.html" in paths


CASE_PAIRS = [
    ("repo", 1, "Acme/web", "acme/web"),
    ("repo", 1, "acme/Web", "acme/web"),
    ("repo", 1, "Acme/one", "acme/two"),
    ("exception", 2, "ValueError", "Valueerror"),
    ("source.path", 6, "pkg/Foo.py", "pkg/foo.py"),
    ("source.path", 6, "Pkg/a.py", "pkg/b.py"),
    ("source.path", 6, "café.py", "cafe\u0301.py"),
    ("source.path", 6, "lib/aux.py", "lib/aux_.py"),
    ("source.path", 6, "lib/AUX", "lib/aux_/x.py"),
]


def _with(field: str, value: str, message: str) -> str:
    record = MINIMAL.replace("must be positive", message)
    if field == "repo":
        return record.replace("example/project", value)
    if field == "exception":
        return record.replace("ValueError", value)
    return record.replace("src/project/config.py", quoted(value))


@pytest.mark.parametrize(("field", "line", "first", "second"), CASE_PAIRS)
def test_names_that_are_one_folder_on_macos_and_windows_are_refused(
    tmp_path: Path, run: Run, field: str, line: int, first: str, second: str
) -> None:
    """Item 16: ``Acme/Web`` and ``acme/web``, ``ValueError`` and ``Valueerror``,
    ``pkg/Foo.py`` and ``pkg/foo.py`` built without a word into pages that overwrite
    each other there; now each is refused at its line, naming the other."""
    content = content_in(
        tmp_path,
        {"a.yaml": _with(field, first, "is one"), "b.yaml": _with(field, second, "is two")},
    )
    errors = errors_of(run("check", "--content", content, "--out", tmp_path / "out"))
    assert clash_report(errors, content, line) == {
        "a.yaml": (first, "b.yaml"),
        "b.yaml": (second, "a.yaml"),
    }


def clash_report(
    errors: list[re.Match[str]], content: Path, line: int
) -> dict[str, tuple[str, str]]:
    """Record file → (the name it is blamed for, the file its error names), checking that
    each error is E402 at ``line`` of a record file, naming the other file at that line."""
    found = {}
    for error in errors:
        path = Path(error["path"])
        assert same_file(path.parent, content / "errors") and error["line"] == str(line)
        assert error["message"].endswith("[E402]"), error["message"]
        named = re.search(r"'(.*?)'.* in \S*errors/(\w+\.yaml):(\d+);", error["message"])
        assert named and named[3] == str(line), error["message"]
        found[path.name] = (named[1], named[2])
    assert len(found) == len(errors)
    return found


name_letters = st.text("abcdefABCDEF", min_size=1, max_size=8)


@SETTINGS
@given(
    name=name_letters,
    flips=st.lists(st.booleans(), min_size=8, max_size=8),
    field=st.sampled_from(["repo", "exception", "source.path"]),
)
@example(name="abc", flips=[False] * 8, field="source.path")
@example(name="abc", flips=[False, True] + [False] * 6, field="exception")
def test_names_differing_in_case_are_refused_or_are_the_same(
    run: Run, name: str, flips: list[bool], field: str
) -> None:
    """Property (item 16): two records whose names differ only in case stop the build at
    the second one's line, naming the first; the same name twice builds, to paths no
    case-insensitive system confuses."""
    other = "".join(c.swapcase() if flip else c for c, flip in zip(name, flips, strict=False))
    values = {
        "repo": (f"o/{name}", f"o/{other}"),
        "exception": (f"E{name}", f"E{other}"),
        "source.path": (f"d/{name}.py", f"d/{other}.py"),
    }[field]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        records = {
            "a.yaml": _with(field, values[0], "one"),
            "b.yaml": _with(field, values[1], "two"),
        }
        content = content_in(root, records)
        out = root / "out"
        result = run("build", "--content", content, "--out", out)
        if name == other:
            assert result.code == 0, result.err
            assert windows_problems(out) == []
            return
        line = {"repo": 1, "exception": 2, "source.path": 6}[field]
        assert clash_report(errors_of(result), content, line) == {
            "a.yaml": (values[0], "b.yaml"),
            "b.yaml": (values[1], "a.yaml"),
        }
        assert not out.exists()


# --- Item 17: paths too long for a file system ----------------------------------------------


def test_a_source_path_of_25_parts_of_200_bytes_is_refused_at_its_line(
    tmp_path: Path, run: Run
) -> None:
    """Item 17: it passed validation and the build died with ``OSError: [Errno 36] File
    name too long`` and a traceback."""
    path = "/".join(f"{n:02d}" + "p" * 198 for n in range(25))
    content = content_in(tmp_path, {"deep.yaml": MINIMAL.replace("src/project/config.py", path)})
    out = tmp_path / "out"
    (error,) = errors_of(run("build", "--content", content, "--out", out))
    assert same_file(error["path"], content / "errors" / "deep.yaml")
    assert error["line"] == "6"
    assert f"at most {MAX_OUTPUT_PATH}" in error["message"]
    assert error["message"].endswith("[E206]")
    assert not out.exists()


def test_an_exception_whose_page_path_is_too_long_is_refused(tmp_path: Path, run: Run) -> None:
    exception = "E" * (MAX_OUTPUT_PATH - len("exceptions//index.html") + 1)
    content = content_in(tmp_path, {"long.yaml": MINIMAL.replace("ValueError", exception)})
    (error,) = errors_of(run("check", "--content", content, "--out", tmp_path / "out"))
    assert (error["line"], error["message"][-6:]) == ("2", "[E206]")


def test_a_path_of_exactly_the_limit_builds(tmp_path: Path, run: Run) -> None:
    prefix = "repos/example/project/files/"
    room = MAX_OUTPUT_PATH - len(prefix) - len("/index.html")
    path = "a" * (room - 3) + ".py"
    record = MINIMAL.replace("src/project/config.py", path)
    content = content_in(tmp_path, twice("edge", record))
    built(run, content, tmp_path / "out")
    longest = max(output_paths(tmp_path / "out"), key=lambda p: len(p.encode()))
    assert len(longest.encode()) == MAX_OUTPUT_PATH


path_parts = st.text(
    st.sampled_from(["a", "Z", "é", "語", "😀", "-", ":", " ", "."]), min_size=1, max_size=60
)


@SETTINGS
@given(parts=st.lists(path_parts, min_size=1, max_size=30), repeat=st.integers(1, 5))
@example(parts=["p" * 200] * 25, repeat=1)
@example(parts=["to: b", "c. "], repeat=2)
def test_any_source_path_is_refused_at_its_line_or_builds_paths_that_fit(
    run: Run, parts: list[str], repeat: int
) -> None:
    """Property (item 17): however long and deep a source path, the build stops at its
    line with E206, or every file of the site fits in MAX_OUTPUT_PATH bytes."""
    assume(all(part * repeat not in (".", "..") for part in parts))  # refused, E301
    path = "/".join(part * repeat for part in parts)
    assume(not re.match(r"^[A-Za-z]:", path))  # a Windows drive: refused, E301
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        record = MINIMAL.replace("src/project/config.py", quoted(path))
        content = content_in(root, twice("p", record))
        out = root / "out"
        result = run("build", "--content", content, "--out", out)
        if result.code == 0:
            assert max(len(p.encode()) for p in output_paths(out)) <= MAX_OUTPUT_PATH
            assert windows_problems(out) == []
        else:
            errors = errors_of(result)
            # Each of the two records, at its own line.
            assert [(e["line"], e["message"][-6:]) for e in errors] == [("6", "[E206]")] * 2, errors


# --- Item 20: control characters in any value ---------------------------------------------

BAD_CHARACTERS = ["\x00", "\x01", "\x08", "\x0b", "\x1b", "\x7f", "\x85", "\x9b", "\ud800"]
BAD_CHARACTERS += ["\udfff", "\ufdd0", "\ufffe", "\uffff", "\U0001fffe", "\U0010ffff"]


@pytest.mark.parametrize(
    ("field", "line", "char"),
    [
        (name, line, BAD_CHARACTERS[index % len(BAD_CHARACTERS)])
        for index, (name, line, _) in enumerate(FIELDS)
    ],
    ids=[name for name, _, _ in FIELDS],
)
def test_a_control_character_in_any_record_field_is_refused_at_its_line(
    tmp_path: Path, run: Run, field: str, line: int, char: str
) -> None:
    """Item 20: a message scanned with a NUL put raw NUL bytes into the HTML; any value
    holding a control character, half a surrogate pair or a noncharacter, written as a
    YAML escape, is refused at its line."""
    value = dict((name, value) for name, _, value in FIELDS)[field]
    bad = value[:2] + char + value[2:]
    content = content_in(tmp_path, {"r.yaml": full_record(**{field: bad})})
    out = tmp_path / "out"
    (error,) = errors_of(run("build", "--content", content, "--out", out))
    assert same_file(error["path"], content / "errors" / "r.yaml")
    assert error["line"] == str(line)
    assert f"U+{ord(char):04X}" in error["message"]
    assert error["message"].endswith("[E204]")
    assert not out.exists()


def test_the_first_refused_character_is_named_whichever_plane_it_is_in(
    tmp_path: Path, run: Run
) -> None:
    """A noncharacter beyond the first plane before a control character: the message
    names the one that comes first, at its position."""
    bad = full_record(title="An \U0001fffe title \x01", meaning="It \x01 breaks \U0010ffff")
    content = content_in(tmp_path, {"r.yaml": bad})
    errors = errors_of(run("build", "--content", content, "--out", tmp_path / "out"))
    assert [(e["line"], e["message"]) for e in errors] == [
        ("4", "title holds the character U+1FFFE at position 4, which no page may carry [E204]"),
        ("5", "meaning holds the character U+0001 at position 4, which no page may carry [E204]"),
    ]


@pytest.mark.parametrize(("field", "line", "value"), SITE_FIELDS)
def test_a_control_character_in_a_site_field_is_refused_at_its_line(
    tmp_path: Path, run: Run, field: str, line: int, value: str
) -> None:
    content = content_in(tmp_path, {"a.yaml": MINIMAL}, site_yaml(**{field: value + "\x00"}))
    (error,) = errors_of(run("build", "--content", content, "--out", tmp_path / "out"))
    assert same_file(error["path"], content / "site.yaml")
    assert (error["line"], error["message"][-6:]) == (str(line), "[E204]")


def test_the_full_record_builds_and_tab_line_breaks_and_form_feed_are_kept(
    tmp_path: Path, run: Run
) -> None:
    """What is not refused: the record the tests above spoil builds, and its excerpt may
    hold the tab, CR and form feed Python source holds."""
    code = "def check(size):\n\tif size <= 0:\x0c\r\n        raise ValueError(x)\n"
    content = content_in(tmp_path, {"r.yaml": full_record(**{"source.excerpt.code": code})})
    out = tmp_path / "out"
    built(run, content, out)
    assert no_refused_characters(out) == []


def no_refused_characters(out: Path) -> list[str]:
    refused = re.compile("[" + re.escape(REFUSED_CHARACTERS) + "]")
    found = []
    for rel in output_paths(out):
        text = (out / rel).read_bytes().decode("utf-8")  # a lone surrogate cannot be encoded
        if refused.search(text):
            found.append(rel)
    return found


def test_character_references_in_markdown_carry_no_control_character(
    tmp_path: Path, run: Run
) -> None:
    """The same class by another road: Markdown turns ``&#0;`` and friends into
    characters, and none of them may reach a page."""
    references = " ".join(f"&#{ord(c)};" for c in BAD_CHARACTERS) + " &#x1b;[31m &#x9B;"
    content = content_in(tmp_path, {"r.yaml": full_record(meaning=references)})
    out = tmp_path / "out"
    built(run, content, out)
    assert no_refused_characters(out) == []


text_fields = st.sampled_from([name for name, _, _ in FIELDS])
bad_characters = st.one_of(
    st.sampled_from(BAD_CHARACTERS),
    st.sampled_from(REFUSED_CHARACTERS),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
)


@SETTINGS
@given(field=text_fields, char=bad_characters, at=st.integers(0, 40))
def test_a_control_character_anywhere_is_refused_or_never_reaches_the_site(
    run: Run, field: str, char: str, at: int
) -> None:
    """Property (item 20): a bad character at any place of any text field stops the
    build at that field's line, or the site holds no such character."""
    lines = {name: line for name, line, _ in FIELDS}
    value = dict((name, value) for name, _, value in FIELDS)[field]
    at = min(at, len(value))
    bad = value[:at] + char + value[at:]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        content = content_in(root, {"r.yaml": full_record(**{field: bad})})
        out = root / "out"
        result = run("build", "--content", content, "--out", out)
        if result.code == 0:
            assert no_refused_characters(out) == []
            return
        errors = errors_of(result)
        assert errors and all(same_file(e["path"], content / "errors" / "r.yaml") for e in errors)
        assert str(lines[field]) in [e["line"] for e in errors], errors


_ODD_VALUES = (
    None,
    "",
    " ",
    "x",
    "\x00",
    3,
    -1,
    0,
    True,
    1.5,
    [],
    {},
    ["a"],
    {"a": 1},
    "2020-01-01",
    "2020-1-1",
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_quick_check_of_a_record_finds_the_problems_the_full_one_does(data: Any) -> None:
    """check_shape answers most records with a quick pass; a record it passes must be one
    the full check (which words each problem) finds nothing wrong with."""
    import copy
    import dataclasses

    from errdex.records import load, validate
    from errdex.records.schema import RECORD

    paths = sorted((Path(__file__).parent.parent / "content" / "errors").rglob("*.yaml"))
    doc, _ = load.load_file(data.draw(st.sampled_from(paths)))
    assert doc is not None
    value = copy.deepcopy(doc.data)
    node = value
    for _ in range(data.draw(st.integers(0, 3))):  # somewhere in the record
        if not isinstance(node, (dict, list)) or not node:
            break
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = data.draw(st.sampled_from(keys))
        if isinstance(node[key], (dict, list)) and data.draw(st.booleans()):
            node = node[key]
            continue
        change = data.draw(st.sampled_from(["replace", "remove", "add"]))
        if change == "replace":
            node[key] = data.draw(st.sampled_from(_ODD_VALUES))
        elif change == "remove" and isinstance(node, dict):
            del node[key]
        elif isinstance(node, dict):
            node[f"{key}_extra"] = "x"
        break
    changed = dataclasses.replace(doc, data=value)
    full = list(validate._shape(changed, RECORD, value, ()))
    assert validate.check_shape(changed, RECORD) == full


def test_a_base_url_in_capitals_is_written_as_browsers_compare_it(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    site = SITE_YAML.replace(
        "https://errors.example.test/docs/", "HTTPS://Errors.Example.TEST/Docs"
    )
    content = make_content(tmp_path, {"a.yaml": MINIMAL}, site=site)
    out = tmp_path / "out"
    assert run("build", "--content", content, "--out", out).code == 0
    canonical = soup(out / "index.html").find("link", rel="canonical")
    assert canonical is not None
    assert canonical["href"] == "https://errors.example.test/Docs/"
