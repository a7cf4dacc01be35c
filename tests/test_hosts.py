"""``host`` in site.yaml: the files each host needs, and the build's report of the site's
size against the host's limits."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import MINIMAL, SITE_YAML, make_content

from errdex.site import hosts

OTHER = MINIMAL.replace("size={size} must be positive", "count={count} is too large")


def content_for(tmp_path: Path, host: str | None) -> Path:
    site = SITE_YAML + (f"host: {host}\n" if host else "")
    return make_content(tmp_path, {"a.yaml": MINIMAL, "b.yaml": OTHER}, site=site)


def built(run, tmp_path: Path, host: str | None, *extra: str) -> Path:  # type: ignore[no-untyped-def]
    out = tmp_path / "public"
    result = run("build", "--content", content_for(tmp_path, host), "--out", out, *extra)
    assert result.code == 0, result.err
    return out


def record_ids(out: Path) -> list[str]:
    return sorted(p.name for p in (out / "errors").iterdir() if p.is_dir())


@pytest.mark.parametrize("host", [None, "plain", "github-pages"])
def test_hosts_without_rules_get_a_copy_of_each_json_document(run, tmp_path: Path, host) -> None:  # type: ignore[no-untyped-def]
    out = built(run, tmp_path, host)
    ids = record_ids(out)
    assert len(ids) == 2
    for record_id in ids:
        document = out / "api" / "errors" / f"{record_id}.json"
        assert (out / "api" / "errors" / record_id).read_bytes() == document.read_bytes()
    assert not (out / "_redirects").exists()
    # GitHub Pages reads no _headers file, and would publish it as a page of the site.
    assert (out / "_headers").exists() == (host != "github-pages")


def test_cloudflare_gets_one_rule_for_every_extension_less_address(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = built(run, tmp_path, "cloudflare")
    ids = record_ids(out)
    for record_id in ids:
        assert (out / "api" / "errors" / f"{record_id}.json").is_file()
        assert not (out / "api" / "errors" / record_id).exists()
    rules = [
        line.split()
        for line in (out / "_redirects").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    # The site lives under /docs/ (its base_url). Cloudflare follows a rule even where a
    # file matches, so the .json address is kept to itself first.
    assert rules == [
        ["/docs/api/errors/:id.json", "/docs/api/errors/:id.json", "200"],
        ["/docs/api/errors/:id", "/docs/api/errors/:id.json", "200"],
    ]
    assert (out / "_headers").is_file()


def test_netlify_gets_one_rule_as_it_serves_files_before_rules(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = built(run, tmp_path, "netlify")
    rules = [line for line in (out / "_redirects").read_text().splitlines() if line[:1] != "#"]
    assert rules == ["/docs/api/errors/:id /docs/api/errors/:id.json 200"]
    assert not any((out / "api" / "errors" / i).exists() for i in record_ids(out))


def test_changing_the_host_removes_the_copies_it_no_longer_needs(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = built(run, tmp_path, "github-pages")
    ids = record_ids(out)
    assert all((out / "api" / "errors" / i).is_file() for i in ids)
    (tmp_path / "content" / "site.yaml").write_text(SITE_YAML + "host: cloudflare\n")
    result = run("build", "--content", tmp_path / "content", "--out", out)
    assert result.code == 0, result.err
    assert not any((out / "api" / "errors" / i).exists() for i in ids)
    assert (out / "_redirects").is_file()


def test_an_unknown_host_is_an_error_at_its_line(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = content_for(tmp_path, "vercel")
    result = run("build", "--content", content, "--out", tmp_path / "public")
    assert result.code == 1
    line = SITE_YAML.count("\n") + 1
    assert f"site.yaml:{line}:" in result.err
    assert "plain, github-pages, cloudflare or netlify" in result.err
    assert not (tmp_path / "public").exists()


def test_the_build_reports_the_sites_files_and_bytes(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "public"
    result = run("build", "--content", content_for(tmp_path, "cloudflare"), "--out", out, "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    files = [p for p in out.rglob("*") if p.is_file()]
    assert report["counts"]["files"] == len(files)
    assert report["counts"]["bytes"] == sum(p.stat().st_size for p in files)
    largest = max(files, key=lambda p: p.stat().st_size)
    assert report["largest"]["bytes"] == largest.stat().st_size
    assert report["host"] == "cloudflare"
    assert report["counts"]["warnings"] == 0
    # Said on standard error too, with the share of the host's limit.
    assert f"{len(files):,} files" in result.err
    assert "Cloudflare Pages: 0% of 20,000 files" in result.err


def test_a_site_near_its_hosts_limit_is_warned_of_and_still_built(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    small = dataclasses.replace(hosts.HOSTS["cloudflare"], max_files=70)
    monkeypatch.setitem(hosts.HOSTS, "cloudflare", small)
    out = tmp_path / "public"
    result = run("build", "--content", content_for(tmp_path, "cloudflare"), "--out", out)
    assert result.code == 0, result.err
    files = sum(1 for p in out.rglob("*") if p.is_file())
    assert 56 <= files <= 70, files  # 80% of 70 or more: a warning, not yet over
    share = f"{files / 70:.0%}"
    assert (
        f"site.yaml: warning: the site is near a limit of Cloudflare Pages, 70 files: it has "
        f"{files} ({share}) [W502]" in result.err
    )
    assert (out / "index.html").is_file()


def test_usage_warns_at_eighty_percent_of_each_limit() -> None:
    host = hosts.Host("h", "Host", "", False, max_files=100, max_bytes=1000, max_file_bytes=50)
    fine = hosts.Usage(files=79, bytes=799, largest="a", largest_bytes=39)
    assert hosts.problems(fine, host) == []
    near = hosts.Usage(files=80, bytes=1001, largest="api/big.json", largest_bytes=40)
    messages = [p.message for p in hosts.problems(near, host)]
    assert messages == [
        "the site is near a limit of Host, 100 files: it has 80 (80%)",
        "the site is over a limit of Host, 1,000 bytes: it has 1,001 (100%)",
        "the site is near a limit of Host, 50 bytes in one file: it has 40 (api/big.json) (80%)",
    ]


def test_an_update_leaves_the_site_unmeasured(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Walking every file of a big site would cost an edit more than a quarter of a
    second: only a full build measures it."""
    out = built(run, tmp_path, "cloudflare")
    record = tmp_path / "content" / "errors" / "a.yaml"
    record.write_text(record.read_text() + "meaning: Sizes start at one.\n")
    result = run("build", "--content", tmp_path / "content", "--out", out, "--json", "-v")
    assert result.code == 0, result.err
    assert "errdex: update: 1 record changed" in result.err
    assert "files" not in json.loads(result.out)["counts"]
    assert "the site is" not in result.err
