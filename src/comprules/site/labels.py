"""The words of the site's pages: interface strings, language and diff-kind names,
edition labels, titles as plain text. From the language table
(``comprules/data/languages.toml``).

Every page module reads them from here (not from :mod:`.render`, which imports the
page modules: no import cycle).
"""

from __future__ import annotations

import re

from .. import languages
from ..model import Edition
from . import urls as U

#: Names of diff kinds per language, and the languages' own names, from the language table.
KIND_LABELS: dict[str, dict[str, str]] = {lang.code: lang.kinds for lang in languages.all_languages()}
LANG_NAMES: dict[str, str] = {lang.code: lang.name for lang in languages.all_languages()}
#: The interface strings per language (``comprules/data/languages.toml``).
LABELS: dict[str, dict[str, str]] = {lang.code: lang.labels for lang in languages.all_languages()}

_UNDERSCORES = re.compile(r"(?<!\w)_([^\s_](?:[^_]*?[^\s_])?)_(?!\w)")


def labels(lang: str) -> dict[str, str]:
    """The interface's words in a language (English when not translated)."""
    return languages.get(lang).labels


def edition_label(edition: Edition) -> str:
    """``en 2026-08-07`` for an edition; a fragment's title ("Les capacités", found by
    the parser in the document: :func:`comprules.corpus.describe.document_title`), its
    name (``fr/004_…``) when the document has none, never its bare file stem."""
    lang, _, key = edition.name.partition("/")
    if U.is_fragment(edition):
        return edition.title if edition.title and edition.title != key else edition.name
    return f"{lang} {key}" if key else edition.name


def plain(text: str) -> str:
    """Text for ``<title>``: underscore italics unmarked (``_Magic_`` → ``Magic``)."""
    return _UNDERSCORES.sub(r"\1", text) if "_" in text else text
