"""New editions announced: Atom feeds (RFC 4287) of the site's editions (issue 24).

``feed.xml`` has one entry per dated edition of every language, newest first, and each
language with dated editions has its own, ``{lang}/feed.xml``. An entry gives the
edition's effective date, its set, how many rules the release added, removed, moved and
edited (against the edition before it in its language: :func:`release_counts`), and links
the release's bulletin (``diff/{lang}/{old}..{new}/index.html``; the first edition of a
language, which has none, its contents). Links are relative to the feed (the site works
from any folder of any server), ids are ``urn:uuid:`` names made from the edition's name,
and every date is an effective date, so two builds of the same editions write the same
bytes. Every page's head links the feed of the whole site and its language's.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from . import urls as U
from .labels import LANG_NAMES

ATOM = "http://www.w3.org/2005/Atom"
#: The namespace of the feeds' ids (uuid5 of ``comprules:{edition name}``).
_NAMESPACE = uuid.UUID("6f1d8a52-3c1e-5b7a-9c64-2f0e8d4b7a13")
TITLE = "Magic: The Gathering Comprehensive Rules"
#: The counts an entry gives, in order.
COUNTS = ("added", "removed", "moved", "edited")


@dataclass(frozen=True)
class Release:
    """One edition as a feed entry: ``edition`` (``en/2026-08-07``), ``date`` (ISO),
    ``set`` (the set released with it, or ``""``), ``previous`` (the edition before it in
    its language, or ``None``), ``counts`` (:data:`COUNTS` → rules; empty without a
    previous edition) and ``bulletin`` (the site path of the release's bulletin, or
    ``None``)."""

    edition: str
    date: str
    set: str = ""
    previous: str | None = None
    counts: Mapping[str, int] = field(default_factory=dict)
    bulletin: str | None = None

    @property
    def lang(self) -> str:
        return self.edition.partition("/")[0]


def release_counts(rows: Iterable) -> dict[str, int]:
    """Rules added, removed, moved (their number changed) and edited (their words
    changed: edited or rewritten) by a release, from the rows of its alignment
    (:class:`comprules.align.alignment.RuleChange`). A rule both moved and edited counts
    in both; a typography change or a cited number that followed the renumbering in
    neither."""
    counts = dict.fromkeys(COUNTS, 0)
    for row in rows:
        if row.old is None:
            counts["added"] += 1
        elif row.new is None:
            counts["removed"] += 1
        else:
            counts["moved"] += bool(row.moved)
            counts["edited"] += bool(row.edited)
    return counts


def entry_id(edition: str) -> str:
    """The entry's permanent id: ``urn:uuid:`` of the edition's name."""
    return uuid.uuid5(_NAMESPACE, f"comprules:{edition}").urn


def summary(release: Release) -> str:
    """``12 rules added, 3 removed, 40 moved, 85 edited since 2026-06-19.``"""
    if release.previous is None or not release.counts:
        return "The first edition of this language in the knowledge base."
    c = release.counts
    since = release.previous.partition("/")[2] or release.previous
    rules = "rule" if c.get("added", 0) == 1 else "rules"
    return (
        f"{c.get('added', 0)} {rules} added, {c.get('removed', 0)} removed, {c.get('moved', 0)} moved, "
        f"{c.get('edited', 0)} edited since {since}."
    )


def _when(day: str) -> str:
    return f"{day}T00:00:00Z"


def feed_xml(path: str, releases: Sequence[Release], lang: str | None = None) -> str:
    """The Atom document at site path ``path`` of ``releases`` (those of ``lang`` when
    given), newest first (ties: by name)."""
    mine = sorted(
        (r for r in releases if lang is None or r.lang == lang), key=lambda r: (r.date, r.edition), reverse=True
    )
    u = U.Urls(path)
    name = LANG_NAMES.get(lang, lang) if lang else None
    title = f"{TITLE}: new {name} editions" if name else f"{TITLE}: new editions"
    updated = _when(mine[0].date) if mine else "1999-04-23T00:00:00Z"
    feed_id = uuid.uuid5(_NAMESPACE, "comprules:feed:" + (lang or "*")).urn
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f'<feed xmlns="{ATOM}" xml:lang="{lang or "en"}">',
        f"<title>{escape(title)}</title>",
        "<subtitle>One entry per edition: its date, set and what its release changed.</subtitle>",
        f"<id>{feed_id}</id>",
        f"<updated>{updated}</updated>",
        f'<link rel="self" type="application/atom+xml" href={quoteattr(u(path))}/>',
        f'<link rel="alternate" type="text/html" href={quoteattr(u(U.HOME))}/>',
        "<author><name>comprules</name></author>",
        "<generator>comprules</generator>",
    ]
    for r in mine:
        label = LANG_NAMES.get(r.lang, r.lang)
        title = f"{label} Comprehensive Rules of {r.date}" + (f" ({r.set})" if r.set else "")
        text = summary(r)
        target = r.bulletin or U.edition_index(r.edition)
        counts = "".join(
            f"<li>{escape(k)}: {int(r.counts.get(k, 0))}</li>" for k in COUNTS if r.previous is not None and r.counts
        )
        content = f"<p>{escape(text)}</p>" + (f"<ul>{counts}</ul>" if counts else "")
        lines += [
            "<entry>",
            f"<title>{escape(title)}</title>",
            f"<id>{entry_id(r.edition)}</id>",
            f"<published>{_when(r.date)}</published>",
            f"<updated>{_when(r.date)}</updated>",
            f'<link rel="alternate" type="text/html" href={quoteattr(u(target))}/>',
            f'<link rel="related" type="text/html" href={quoteattr(u(U.edition_index(r.edition)))}/>',
            f'<category term="{escape(r.lang)}" label={quoteattr(label)}/>',
            f"<summary>{escape(text)}</summary>",
            f'<content type="html">{escape(content)}</content>',
            "</entry>",
        ]
    lines.append("</feed>")
    return "\n".join(lines) + "\n"


def feed_langs(releases: Iterable[Release]) -> list[str]:
    """The languages with a feed of their own (those with dated editions), sorted."""
    return sorted({r.lang for r in releases})


def write_feeds(out: Path, releases: Sequence[Release]) -> list[str]:
    """Write ``feed.xml`` and ``{lang}/feed.xml`` into the site at ``out``; the site paths
    written."""
    written = []
    for lang in (None, *feed_langs(releases)):
        path = U.feed_file(lang)
        target = Path(out) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(feed_xml(path, releases, lang), encoding="utf-8")
        written.append(path)
    return written


def links(lang: str | None, langs: Iterable[str]) -> list[dict[str, str]]:
    """The feeds a page of language ``lang`` links in its head: the whole site's, then its
    language's (when it has one): ``[{"path", "title"}]``."""
    out = [{"path": U.feed_file(), "title": f"{TITLE}: new editions"}]
    if lang in set(langs):
        out.append({"path": U.feed_file(lang), "title": f"New {LANG_NAMES.get(lang, lang)} editions"})
    return out
