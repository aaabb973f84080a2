"""The cards stage of a build: a card file and the editions in, the card tables out.

:func:`build_cards` reads the card file streamed (:mod:`.read`), finds every span that
calls on a concept (:mod:`.analyse`), and writes the cards, the spans and, for each
edition, the rules of each concept (:mod:`.concepts`) into a database (:mod:`.store`),
first under a temporary name, renamed into place when complete.

Which rule of an old edition a wording calls on goes by lineage: the wordings table
numbers its rules as in the latest English edition, and the alignments the build stored
(``data/alignments``) say what each of those rules was in every earlier edition (614.1a
of 2026 is 419.1a of 2008). A Chinese edition, numbered as the English one of its date,
takes that edition's rules by number.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import string
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..model import Edition
from . import store
from .analyse import Analyser
from .concepts import KIND_WEIGHT, EditionConcepts, detectors, edition_concepts, fold, wordings_table
from .read import ReadReport, read_cards

#: Cards written per transaction batch.
BATCH = 2000


@dataclass
class CardReport:
    """What the cards stage did: the file, its format, counts and timings (seconds)."""

    path: str
    format: str = ""
    cards: int = 0
    calls: int = 0
    editions: int = 0
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


def _lineages(
    editions: list[Edition], alignments: Path | None, numbered_in: str
) -> Callable[[str], Callable[[str], str | None] | None]:
    """edition name → ``at(number)``: the id in that edition of the rule numbered
    ``number`` in ``numbered_in`` (the edition ``card_wordings.toml`` numbers its rules
    in), through the lineage of the English editions from the stored alignments;
    ``None`` for ``numbered_in`` itself (its numbers are the table's). An edition that
    cannot be followed to ``numbered_in`` (the knowledge base lacks it, or an alignment
    of the chain) gets no rule for any number: a number of another edition names
    another rule (603.1 of 2009-05-01 is the Emperor variant, not triggered abilities).
    """

    def none(_number: str) -> str | None:
        return None

    def unfollowed(name: str) -> Callable[[str], str | None] | None:
        return None if name == numbered_in else none

    english = sorted(
        (e for e in editions if e.lang == "en" and e.kind == "edition" and e.effective), key=lambda e: str(e.effective)
    )
    if numbered_in not in {e.name for e in english} or alignments is None or len(english) < 2:
        return unfollowed
    from ..align.changes import Alignment
    from ..align.history import alignment_path
    from ..align.lineage import Lineage

    pairs = {}
    for a, b in zip(english, english[1:]):
        path = alignment_path(alignments.parent if alignments.name == "alignments" else alignments, a.name, b.name)
        if not path.is_file():
            return unfollowed
        with open(path, encoding="utf-8") as fh:
            pairs[(a.name, b.name)] = Alignment.from_json(json.load(fh))
    lineage = Lineage.build(english, pairs)
    keys = lineage.key.get(numbered_in, {})

    def for_edition(name: str) -> Callable[[str], str | None] | None:
        if name == numbered_in:
            return None
        at = lineage.at.get(name)
        if at is None:
            return none
        return lambda number: at.get(keys.get(number, ""))

    return for_edition


def _rule_label(edition: Edition, rid: str) -> str:
    r = edition.get(rid)
    if r is None:
        return ""
    if r.title:
        return r.title
    words = (r.text or "").split()
    return " ".join(words[:12]) + (" …" if len(words) > 12 else "")


def _rules_words(edition: Edition | None, labels: Iterable[str]) -> set[str]:
    """The words and phrases a card name is a rules word for: every word the CR prints in
    lower case, and every concept label."""
    out = {fold(label) for label in labels}
    if edition is not None:
        for r in edition.rules:
            out.update(re.findall(r"\b[a-z][a-z'’-]+\b", (r.text or "") + " " + " ".join(r.examples)))
    return out


def _printed_names(edition: Edition, db: sqlite3.Connection) -> list[int]:
    """The ids of the cards whose names ``edition`` prints (in its rules, examples or glossary: the CR's
    examples name cards, "Wall of Omens"), found among its runs of capitalised words."""
    texts = [r.text or "" for r in edition.rules] + [x for r in edition.rules for x in r.examples]
    texts += [g.text for g in edition.glossary]
    runs: set[str] = set()
    word = r"[A-Z][\w’'-]*"
    small = r"(?:of|the|a|an|and|to|in|from|with|for|on|at|by)"
    run = re.compile(rf"{word}(?:,? (?:{small} )*{word})*")
    for text in texts:
        for m in run.finditer(text.replace("’", "'")):
            parts = m.group(0)
            words = parts.split(" ")
            for i in range(len(words)):
                for j in range(i + 1, min(len(words), i + 7) + 1):
                    runs.add(" ".join(words[i:j]).strip(","))
    return [i for i, name in db.execute("SELECT id, name FROM cards") if name.replace("’", "'") in runs]


def concepts_of(
    editions: list[Edition],
    *,
    glossary_refs: Mapping[str, Mapping[str, Iterable[str]]] | None = None,
    alignments: Path | None = None,
) -> dict[str, EditionConcepts]:
    """Each edition's concepts (English and French ones from their own text; a Chinese one
    from the English edition of its date, by number)."""
    table = wordings_table()
    lineage = _lineages(editions, alignments, table.numbered_in)
    out: dict[str, EditionConcepts] = {}
    english = {e.effective: e for e in editions if e.lang == "en" and e.kind == "edition"}
    for e in editions:
        if e.kind != "edition":
            continue
        if e.lang == "zh":
            twin = english.get(e.effective)
            if twin is None:
                continue
            base = out.get(twin.name) or edition_concepts(
                twin, glossary_refs=(glossary_refs or {}).get(twin.name), table=table, at=lineage(twin.name)
            )
            rules = {k: tuple(r for r in v if e.get(r) is not None) for k, v in base.rules.items()}
            out[e.name] = EditionConcepts(e.name, {k: v for k, v in rules.items() if v}, base.labels)
            continue
        if e.lang != "en":
            continue
        out[e.name] = edition_concepts(
            e, glossary_refs=(glossary_refs or {}).get(e.name), table=table, at=lineage(e.name)
        )
    return out


def build_cards(
    card_file: str | os.PathLike,
    editions: list[Edition],
    dest: Path,
    *,
    glossary_refs: Mapping[str, Mapping[str, Iterable[str]]] | None = None,
    alignments: Path | None = None,
    say: Callable[[str], None] | None = None,
) -> CardReport:
    """Write the card tables of ``card_file`` for ``editions`` into the database ``dest``
    (replaced whole: written as ``dest.tmp-…`` first, renamed when complete).

    ``glossary_refs``: edition name → slug → the rules its glossary entries cite (the
    build's resolutions; computed per edition when not given); ``alignments``: the
    ``data/alignments`` folder, for the rules of old editions. Raises
    :class:`~comprules.errors.SourceError` for a card file that cannot be read.
    """
    say = say or (lambda _m: None)
    report = CardReport(str(card_file))
    t = time.perf_counter()
    by_edition = concepts_of(editions, glossary_refs=glossary_refs, alignments=alignments)
    report.editions = len(by_edition)
    numbered_in = wordings_table().numbered_in
    english = [e.name for e in editions if e.lang == "en" and e.kind == "edition"]
    if english and numbered_in not in english:
        report.notes.append(
            f"the card wordings' rules are numbered as in {numbered_in}, which these editions do not "
            f'include: wordings such as "instead" and "prevent" call on no rule (build with {numbered_in})'
        )
    labels: dict[str, str] = {}
    rules_count: dict[str, int] = {}
    for ec in by_edition.values():
        for k, v in ec.labels.items():
            labels.setdefault(k, v)
        for k, ids in ec.rules.items():
            rules_count[k] = max(rules_count.get(k, 0), len(ids))
    rich = [k for k, n in rules_count.items() if k.startswith("subtype:") and n > 1]
    analyser = Analyser(detectors(labels, rich=rich))
    latest = max(
        (e for e in editions if e.lang == "en" and e.kind == "edition" and e.effective),
        key=lambda e: str(e.effective),
        default=None,
    )
    rules_words = _rules_words(latest, [v for k, v in labels.items() if "|" not in k])
    #: names that are the rules' own capitalised words (a keyword, a type, a subtype): cards only with card:
    printed = {
        fold(v)
        for k, v in labels.items()
        if k.split(":", 1)[0] in ("keyword", "action", "type", "subtype", "supertype")
    }
    report.timings["concepts"] = time.perf_counter() - t

    t = time.perf_counter()
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=dest.name + ".tmp-", dir=dest.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        db = sqlite3.connect(tmp)
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        store.create(db)
        read = ReadReport(str(card_file))
        batch: list = []
        written = 0

        def flush() -> None:
            nonlocal written
            if batch:
                written += store.write_cards(db, batch, first=written + 1)
                batch.clear()

        for card in read_cards(Path(card_file), read):
            calls = analyser.calls(card)
            report.calls += len(calls)
            # its words without the marks around them: ";Morph" (an Unfinity card) is the keyword
            plain = fold(card.name).strip(string.punctuation + " ")
            level = 2 if plain in printed else 1 if plain in rules_words else 0
            batch.append((card, calls, level))
            if len(batch) >= BATCH:
                flush()
        flush()
        report.format, report.cards = read.format, read.cards
        if latest is not None:
            store.mark_in_rules(db, _printed_names(latest, db))
        report.notes += read.notes
        report.timings["cards"] = time.perf_counter() - t
        t = time.perf_counter()
        used = {r[0] for r in db.execute("SELECT DISTINCT concept FROM card_calls")}
        own = {f"wording:{w.id}": w.weight for w in wordings_table().wordings}
        store.write_concepts(
            db,
            [
                (c, c.split(":", 1)[0], labels.get(c, c), KIND_WEIGHT.get(c.split(":", 1)[0], 0.3) * own.get(c, 1.0))
                for c in sorted(used)
            ],
        )
        by_name = {e.name: e for e in editions}
        for name, ec in by_edition.items():
            rules = {c: ids for c, ids in ec.rules.items() if c in used}
            ed = by_name[name]
            used_ids = {r for v in rules.values() for r in v}
            store.write_edition(db, name, rules, {r: _rule_label(ed, r) for r in used_ids})
        store.write_meta(
            db,
            {
                "source": Path(card_file).name,
                "card_format": report.format,
                "cards": report.cards,
                "calls": report.calls,
                "editions": report.editions,
            },
        )
        db.commit()
        db.execute("VACUUM")
        db.close()
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()
    report.timings["write"] = time.perf_counter() - t
    say(f"read {report.cards} cards from {card_file} ({report.format}), {report.calls} spans calling on rules")
    return report
