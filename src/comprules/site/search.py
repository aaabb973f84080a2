"""The site's search: a Pagefind index of every distinct rule text, both languages.

Indexing the rendered pages would index each rule once per edition (74 times for a
rule that never changed) and send results to whole pages. Instead each *distinct*
text of a rule (same language, same id, same words) is one small record, written as
a tiny HTML file for the Pagefind CLI (``python -m pagefind``, the binary shipped in
the ``pagefind`` wheel): its words, its title ("702.37a · Morph"), its real address
(``meta url``: the newest edition printing it, anchor included) and filters:
``edition`` (every edition printing that text), ``language`` (``en``, ``fr``) and
``scope`` (``latest`` when the latest edition of its language or a document without
date prints it). French units also carry the English names that align with them
(their English heading, the lexicon's names of the terms they print), so that
"trample" finds "Piétinement". One index serves both languages (``--force-language
en``), so that a search sees both.

The CLI runs in its own process while the pages render (:meth:`SearchIndex.start`,
:meth:`SearchIndex.wait`); ``static/site.js`` queries the index with Pagefind's
JavaScript API. Pagefind loads its index with ``fetch``, which browsers refuse to
pages opened from disk: the search page says so and how to start ``comprules
serve``.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model import Edition, Rule
from . import urls as U
from .pagefind_order import stabilize

if TYPE_CHECKING:
    from .render import SiteRenderer

BUNDLE = "pagefind"


def available() -> bool:
    """True when the Pagefind CLI (PyPI ``pagefind[bin]``) is installed."""
    try:
        import pagefind_bin  # noqa: F401
    except ImportError:
        return False
    return True


def unit_url(edition: Edition, rule: Rule) -> str:
    """Site path of a unit, anchor included."""
    if U.is_fragment(edition) or rule.kind == "chapter" or (rule.section is None and rule.kind != "section"):
        return f"{U.edition_index(edition.name)}#{rule.id}"
    section = rule.number if rule.kind == "section" else rule.section
    return f"{U.section_page(edition.name, section)}#{rule.id}"


def records(editions: list[Edition], latest: dict[str, Edition], english: dict[str, dict[str, list[str]]],
            place=None) -> list[dict[str, Any]]:
    """One record per distinct text of a unit or glossary entry, newest edition first."""
    order = sorted(editions, key=lambda e: (U.is_fragment(e), -(e.effective.toordinal() if e.effective else 0),
                                            e.name))
    latest_names = {e.name for e in latest.values()}
    found: dict[tuple, dict[str, Any]] = {}
    for e in order:
        current = e.name in latest_names or U.is_fragment(e)
        words = english.get(e.name, {})
        for r in e.rules:
            text = r.text + "".join("\n" + ex for ex in r.examples)
            key = (e.lang, r.id, text)
            rec = found.get(key)
            if rec is None:
                parent = e.by_id.get(r.parent) if r.parent else None
                heading = r.title or (parent.title if parent is not None and parent.kind == "rule" else None)
                label = r.number if r.kind in ("chapter", "section", "rule", "subrule") else ""
                rec = found[key] = {
                    "url": (place(e.name, r.id) if place else None) or unit_url(e, r), "lang": e.lang, "editions": [],
                    "title": " · ".join(x for x in (label, heading) if x) or (r.text[:60] + "…"),
                    "text": text, "extra": words.get(r.id, []), "latest": False,
                }
            rec["editions"].append(e.name)
            rec["latest"] = rec["latest"] or current
        for g in e.glossary:
            text = g.text
            key = (e.lang, "glossary/" + g.slug, text)
            rec = found.get(key)
            if rec is None:
                page = U.edition_index(e.name) if U.is_fragment(e) else U.glossary_page(e.name)
                rec = found[key] = {
                    "url": f"{page}#{g.slug}", "lang": e.lang, "editions": [], "title": g.term,
                    "text": text, "extra": words.get("glossary/" + g.slug, []), "latest": False,
                }
            rec["editions"].append(e.name)
            rec["latest"] = rec["latest"] or current
    return list(found.values())


def _page(rec: dict[str, Any]) -> str:
    esc = html.escape
    more = len(rec["editions"]) - 1
    where = rec["editions"][0].replace("/", " ") + (f" (+{more})" if more else "")
    filters = "".join(f'<i data-pagefind-filter="edition">{esc(n)}</i>' for n in rec["editions"])
    extra = f'<p lang="en">{esc(" · ".join(rec["extra"]))}</p>' if rec["extra"] else ""
    return (f'<html lang="en"><head><meta charset="utf-8"></head><body>'
            f'<main data-pagefind-body><h1 data-pagefind-meta="title">{esc(rec["title"])}</h1>'
            f'<p>{esc(rec["text"])}</p>{extra}</main>'
            f'<i data-pagefind-meta="url:{esc(rec["url"])}"></i><i data-pagefind-meta="where:{esc(where)}"></i>'
            f'{filters}<i data-pagefind-filter="language">{rec["lang"]}</i>'
            + ('<i data-pagefind-filter="scope">latest</i>' if rec["latest"] else "")
            + "</body></html>")


class SearchIndex:
    """Build the Pagefind bundle of a site in the background."""

    def __init__(self, site: "SiteRenderer", out: Path):
        self.site = site
        self.out = Path(out)
        self.process: subprocess.Popen | None = None
        self.source: Path | None = None
        self.log = None
        self.started = 0.0
        self.count = 0

    def start(self) -> None:
        """Write the records and start the CLI (nothing when Pagefind is missing)."""
        self.started = time.perf_counter()
        if not available():
            print("warning: pagefind is not installed (pip install 'pagefind[bin]'): "
                  "the site is built without its search index", file=sys.stderr)
            return
        from .compare import english_words

        recs = records(self.site.editions, self.site.latest, english_words(self.site), self.site.place)
        self.count = len(recs)
        self.source = Path(tempfile.mkdtemp(prefix=".search-", dir=self.out.parent))
        for k, rec in enumerate(recs):
            with open(self.source / f"{k}.html", "w", encoding="utf-8") as fh:
                fh.write(_page(rec))
        self.log = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pagefind", "--site", str(self.source), "--output-path",
             str(self.out.resolve() / BUNDLE), "--force-language", "en"],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )

    def wait(self) -> float:
        """Wait for the CLI; raise ``RuntimeError`` with its output if it failed."""
        try:
            if self.process is not None:
                code = self.process.wait()
                if code != 0:
                    self.log.seek(0)
                    raise RuntimeError(f"pagefind failed ({code}): {self.log.read()[-2000:]}")
                stabilize(self.out / BUNDLE)  # same bytes from one build to the next
        finally:
            if self.log is not None:
                self.log.close()
            if self.source is not None:
                shutil.rmtree(self.source, ignore_errors=True)
        return time.perf_counter() - self.started

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.source is not None:
            shutil.rmtree(self.source, ignore_errors=True)
