"""Full-page screenshots of the bundled site, for a person to look at.

Usage, from the repository root: ``python tests/screenshots.py [OUT]`` (default ``screenshots/``).
Builds ``content/`` into a temporary folder, serves it on localhost and writes
``OUT/<page>-<width>-<scheme>.png`` for the home page, an error page and a repo index page at
375 and 1440 px wide, in the light and the dark colour scheme.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import CHROMIUM, CHROMIUM_ARGS, http_server

from errdex.cli import main as errdex

PAGES = {
    "home": "",
    "error-9c019ab65f8b8d16": "errors/9c019ab65f8b8d16/",
    "repo-vllm-project-vllm": "repos/vllm-project/vllm/",
}
VIEWPORTS = {375: 812, 1440: 900}
SCHEMES = ("light", "dark")


def shoot(site: Path, out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    written = []
    with http_server(site) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for width, height in VIEWPORTS.items():
                for scheme in SCHEMES:
                    context = browser.new_context(
                        viewport={"width": width, "height": height}, color_scheme=scheme
                    )
                    try:
                        page = context.new_page()
                        for name, path in PAGES.items():
                            page.goto(url + path, wait_until="networkidle")
                            target = out / f"{name}-{width}-{scheme}.png"
                            page.screenshot(path=str(target), full_page=True)
                            print(target)
                            written.append(target)
                    finally:
                        context.close()
        finally:
            browser.close()
    return written


def run(argv: list[str]) -> int:
    if len(argv) > 1 or (argv and argv[0] in {"-h", "--help"}):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = Path(argv[0] if argv else "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="errdex-shots-") as tmp:
        site = Path(tmp) / "public"
        code = errdex(["build", "--content", "content", "--out", str(site)])
        if code != 0:
            print(f"build failed with exit status {code}", file=sys.stderr)
            return code
        shoot(site, out)
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
