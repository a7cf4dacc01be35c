"""errdex's own problem codes: each has a page in every site errdex builds (/errdex/codes/)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    title: str
    text: str
    """What it means and how to fix it (Markdown)."""


CODES = {
    c.code: c
    for c in (
        Code(
            "E100",
            "A file cannot be read",
            "The file is missing, larger than 2 MB, not UTF-8, holds a NUL byte, is a link "
            "that leads nowhere or outside the content folder, or is a folder named like a "
            "record. Save records as UTF-8 text files inside `content/errors/`.",
        ),
        Code(
            "E101",
            "YAML syntax error",
            "The file is not valid YAML, or uses what errdex refuses: aliases (`*name`), "
            "keys that are not text, values YAML cannot read (a date like 2026-13-45), or "
            "nesting too deep to be a record. The message names the line; indent with spaces, "
            "quote text that holds `: ` or starts with a special character.",
        ),
        Code(
            "E102",
            "Duplicate key",
            "A key is given twice in one mapping; YAML would silently keep the last one. Keep one.",
        ),
        Code("E103", "Empty file", "A record file must hold a mapping of fields."),
        Code(
            "E106",
            "Template error",
            "A template of the site's own `templates/` folder does not compile, or fails as "
            "a page is rendered (a name the page does not have, say). The message names the "
            "file and line; the blocks and names each template gets are in errdex's "
            "docs/look.md (Your own look).",
        ),
        Code(
            "E200",
            "Missing required field",
            "Every record needs `repo`, `exception`, `message` and `source` with `commit`, "
            "`path` and `line`; the site config needs `title`, `base_url` and `repository`.",
        ),
        Code(
            "E201",
            "Wrong type or empty value",
            "A field has the wrong type (text where a number is needed, or the reverse), is "
            "empty, is below its minimum, or is not a YYYY-MM-DD date. A commit or id that "
            "YAML reads as a number must be put in quotes.",
        ),
        Code(
            "E202",
            "Value in the wrong format",
            "The value does not have the form its field needs: ids are 16 lowercase hex "
            "digits, commits 7 to 40, repositories `owner/name`, exceptions Python names; "
            "`source.optional` lists names of `source.parameters`, each once.",
        ),
        Code(
            "E204",
            "Control character in a value",
            "A value holds a character no page should carry: a control character other "
            "than tab, line breaks and form feed (NUL, ESC, DEL, C1 controls), half of a "
            "surrogate pair, or a Unicode noncharacter such as U+FFFE. YAML lets a "
            "double-quoted value write one as an escape (`\\x00`, `\\u001b`); remove it, "
            "or write what it stands for in words.",
        ),
        Code(
            "E205",
            "Base URL not usable",
            "`base_url` in `site.yaml` and `--base-url` must be an absolute `http://` or "
            "`https://` URL of a host, with a plain path: no user name, query or "
            "fragment, no backslash, space or control character, no empty (`//`), `.` or "
            "`..` segment. Every canonical and JSON URL starts with it, and `404.html` "
            "loads its styles and scripts from its path, so anything a browser could read "
            "as another site is refused. Write it as `https://example.com/docs/`.",
        ),
        Code(
            "E206",
            "Output path too long",
            "A record's names become folders of the site: "
            "`repos/OWNER/NAME/files/PATH/index.html` and `exceptions/TYPE/index.html`, "
            "and for each release of `site.yaml`, "
            "`repos/OWNER/NAME/releases/RELEASE/index.html`, must fit in 200 bytes, so the "
            "site builds on Windows (260 characters with the output folder) as on Linux and "
            "macOS. Owners have at most 39 bytes and repository names 100, as on GitHub. "
            "Shorten the exception, the path or the release's name (`pin --release` names "
            "a release otherwise than its tag).",
        ),
        Code(
            "W203",
            "Unknown field",
            "errdex does not know this field and ignores it (it stays out of the JSON "
            "mirror). Often a typo: the message suggests the closest known field.",
        ),
        Code(
            "E207",
            "Extra asset missing",
            "`extra_css` and `extra_js` in site.yaml name files of the site's own `static/` "
            "folder (beside `content/`): the file named is not there. Add it, or fix the path.",
        ),
        Code(
            "E208",
            "Edit URL not usable",
            "`edit_url` in `site.yaml` is what each record file's path in the content folder "
            'is added to, for the "Edit this page" link of its error page: an absolute '
            "`http://` or `https://` URL of a host, with a plain path, as `base_url` is (see "
            "E205). For a site kept on GitHub in the `content/` folder of the branch `main`, "
            "write it as `https://github.com/OWNER/NAME/edit/main/content/`.",
        ),
        Code(
            "W311",
            "Over the asset budget",
            "With `extra_css` or `extra_js`, every page loads more stylesheet or script than "
            "errdex allows itself (20 KiB of CSS, 48 KiB of JavaScript, uncompressed): pages "
            "load slower on a phone. Trim the files, or accept the warning.",
        ),
        Code(
            "E300",
            "Message template does not parse",
            "A `{` without its `}` or the reverse. Placeholders are `{name}`; write `{{` and "
            "`}}` for literal braces.",
        ),
        Code(
            "E301",
            "Unsafe source path",
            "`source.path` becomes part of URLs and file names: it must be relative to the "
            "repository, without `..`, backslashes or control characters.",
        ),
        Code(
            "E302",
            "Excerpt does not fit",
            "`source.line` must fall inside the excerpt (`start` to its last line), and an "
            "excerpt holds at most 1,000 lines: keep the code around the raise.",
        ),
        Code(
            "W303",
            "No raise on the raising line",
            "The excerpt line at `source.line` has no `raise` (nor, in an exception "
            "class's `__init__`, the `super().__init__(…)` that words its message): the "
            "line number or the excerpt's `start` is probably off.",
        ),
        Code(
            "W304",
            "Unknown language",
            "Pygments does not know this `lang`; the block is shown without highlighting. "
            "Use a Pygments name such as `python`, `bash`, `yaml` or `text`.",
        ),
        Code(
            "W308",
            "Message too long for search",
            "Search indexes and matches the first 2,000 characters of a message template "
            "(a placeholder counts as one): the page shows the whole message, and a paste "
            "of its start still finds it, but never as a whole message. Keep the message "
            "as the code raises it; a message this long is usually a mistake.",
        ),
        Code(
            "E305",
            "Unsafe link",
            "A Markdown link to a `javascript:`, `vbscript:`, `data:` or `file:` URL is "
            "refused: link to http(s) pages only.",
        ),
        Code(
            "W306",
            "Raw HTML in Markdown",
            "Raw HTML is shown as text, never rendered. Write Markdown instead.",
        ),
        Code(
            "W307",
            "Prose still TODO",
            "A scaffolded field still says TODO (or an example fix is still `# before` and "
            "`# after`); write it or remove the field. Until then the page and the JSON "
            "document leave it out.",
        ),
        Code(
            "E400",
            "Duplicate id",
            "Two records have the same id (stated, or derived from the same repo, exception "
            "and message), or an alias is another record's id. Give one record its own `id`.",
        ),
        Code(
            "E401",
            "Related id matches no record",
            "A `related` entry that is an id must be the id (or an alias) of a record.",
        ),
        Code(
            "W402",
            "Related message matches no record",
            "A `related` entry given as message text matches no record (or several); it is "
            "shown as plain text, never as a dead link. Add the record, or write its id. An "
            "entry that links the record itself, or the same record as an entry above it, is "
            "left out; remove it.",
        ),
        Code(
            "E402",
            "Names differ only in case",
            "Two records name a repository, an exception or a source path, or `site.yaml` "
            "names two releases of a repository, that differ only in upper and lower case "
            "(or in how an accented letter is composed), or that are one folder once "
            "written so Windows holds them (`aux.py` is the folder `aux_.py`, the release "
            "`aux` the folder `aux_`, as is the release `aux_`): their pages would be one "
            "folder on macOS and Windows, or everywhere, and one would overwrite the other. "
            "A release cannot be named `index.html` or `feed.xml` (in any case) either: "
            "those are the releases page's own files. GitHub owners and names ignore case: "
            "write one the same way everywhere; rename one of two files; pin a release "
            "under another name with `pin --release`.",
        ),
        Code(
            "E403",
            "Unknown or repeated release",
            "A record's `releases` names a release that `site.yaml`'s `releases` does not "
            "list for its repository, lists one release twice or out of order, or `site.yaml` "
            "lists one release of a repository twice. `pin` writes both; pin again rather "
            "than editing them by hand.",
        ),
        Code(
            "W404",
            "An issue links an error no record has",
            "An issue of `content/issues/OWNER/NAME.json` lists in `errors` an id that is "
            "no record's id or alias (its record was deleted, or the file was edited by "
            "hand). The issue is kept and the link left out; run `errdex issues import` "
            "again to link the issues anew.",
        ),
        Code(
            "W405",
            "An error's page moved",
            "A record's id, and so its page's address, changed since the last build: its "
            "repo, exception or message was edited and it states no `id`, or its stated "
            "`id` was. Links to the "
            "old address (in issues, in other sites, in search engines) now get 404. Add "
            "the old id under `aliases` (the warning names it): the old address then "
            "leads to the page. Said once, by the build after the edit, when its cache "
            "holds the last build's state (a file renamed in the same edit is not followed).",
        ),
        Code(
            "E500",
            "Output folder refused",
            "The build replaces its output folder whole, so it refuses the working folder, "
            "one above it, the content folder, a file, and any folder that holds something "
            "errdex did not write (the message names a few; errdex lists its own files in "
            "`.errdex-site`). Move those out, or choose a new or empty folder.",
        ),
        Code(
            "W501",
            "Cache ignored",
            "The highlight cache file is corrupt or not errdex's: it is ignored and rebuilt "
            "(an update that finds it so highlights without it; the next full build "
            "rebuilds it). Or it could not be written at the end of a build (a full disk): "
            "the site is built, and the next build highlights again what it would have kept. "
            "Deleting `.errdex/cache/` is always safe.",
        ),
        Code(
            "W502",
            "Site near its host's limits",
            "The built site has 80% or more of the files or bytes its host (`host` in "
            "`site.yaml`) publishes, or a file near the host's limit for one file: Cloudflare "
            "Pages takes 20,000 files on its free plan and 25 MiB a file, GitHub Pages 1 GB. "
            "The site is built all the same. Choose a host with rewrite rules (`cloudflare`, "
            "`netlify`: one file fewer per record), a paid plan, or split the site.",
        ),
    )
}


def docs_url(base_url: str, code: str) -> str:
    return f"{base_url}errdex/codes/{code}/"
