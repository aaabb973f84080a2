"""One rule's history (lineage): its chain through every edition, by alignment.

``702.37a`` of 2026-08-07 (Morph) walks back through the alignments of consecutive
editions to its first appearance, ``502.26a`` of 2002-10-07, listing each edition
where its words changed and each renumbering (``502.26a`` → ``702.34a`` in
2009-07-11, → ``702.36a``, → ``702.37a``), and forward to the latest edition (or to
the edition that removed it).

Complete editions are walked pair by pair: a rule ``added`` in an edition starts
there. Fragments (forum posts, extracts) hold only part of the rules, so a rule
missing from the previous fragment is looked for in the ones before it: the French
``602¶4`` of seed 001 goes back to ``402.4`` of seed 000.

The alignments come from :func:`comprules.align.alignment.align` (:func:`history`) or from
those a build stored in the knowledge base, ``data/alignments/`` (:func:`kb_history`).
"""

from __future__ import annotations

import json
import os
import shutil
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ..errors import NotFound, UsageError
from ..export import names_a_file
from ..model import Edition, is_translation, section_filter
from .changes import Alignment, RuleChange, WordChange
from .lineage import MANY_FRAGMENTS

__all__ = [
    "LineageStep",
    "history",
    "kb_history",
    "diff",
    "write_alignments",
    "alignment_path",
    "chains",
    "format_diff",
    "format_history",
    "ALIGNMENTS_DIR",
]

ALIGNMENTS_DIR = "alignments"


def align(old: Edition, new: Edition) -> Alignment:
    """:func:`comprules.align.alignment.align`, imported when first needed (a lineage walk
    or a diff read from the database needs none of the matching machinery)."""
    from .alignment import align as run

    return run(old, new)


@dataclass(frozen=True)
class LineageStep:
    """One step of a lineage: the rule as edition ``edition`` prints it.

    ``kind`` is ``added`` (first appearance after an earlier edition without it),
    ``first`` (already in the first edition walked), ``edited`` (same number, other
    words), ``renumbered`` (``changes`` tells whether the words changed too),
    ``split`` / ``merged``, or ``removed`` (``number`` is then the last number it had,
    ``text`` is ``None``). ``previous`` is the number in the edition before.
    """

    edition: str
    number: str
    kind: str
    text: str | None
    previous: str | None = None
    similarity: float = 1.0
    changes: tuple[WordChange, ...] = ()
    words: str | None = None

    @property
    def moved(self) -> bool:
        """True when the number changed at this step."""
        return self.previous is not None and self.previous != self.number and self.kind != "removed"

    @property
    def facet(self) -> str:
        """``moved + edited``, ``typography``, ``added``… (:attr:`RuleChange.facet`)."""
        if self.kind in ("added", "first", "removed"):
            return self.kind
        return RuleChange(self.previous, self.number, self.kind, self.similarity, self.changes, self.words).facet

    def to_json(self) -> dict:
        return {
            "edition": self.edition,
            "number": self.number,
            "kind": self.kind,
            "text": self.text,
            "previous": self.previous,
            "similarity": round(self.similarity, 4),
            "moved": self.moved,
            "words": self.words,
            "facet": self.facet,
            "changes": [c.to_json() for c in self.changes],
        }


class _Walker:
    """Walk a chain of edition names with an alignment source and a text source."""

    def __init__(
        self,
        names: Sequence[str],
        fragments: set[str],
        alignment: Callable[[str, str], Alignment],
        text: Callable[[str, str], str | None],
    ):
        self.names, self.fragments = list(names), fragments
        self.alignment, self.text = alignment, text

    def walk(self, number: str, at: int) -> list[LineageStep]:
        back = self._back(number, at)
        forward = self._forward(number, at)
        return back + forward

    def _back(self, number: str, k: int) -> list[LineageStep]:
        steps: list[LineageStep] = []
        current = number
        while True:
            found = None
            for j in range(k - 1, -1, -1):
                a = self.alignment(self.names[j], self.names[k])
                rows = [c for c in a.backward.get(current, []) if c.old is not None]
                if rows:
                    found = (j, max(rows, key=lambda c: c.similarity))
                    break
                if not (self.names[j] in self.fragments and self.names[k] in self.fragments):
                    break  # complete editions: the rule was added in names[k]
            if found is None:
                kind = "first" if k == 0 else "added"
                steps.append(LineageStep(self.names[k], current, kind, self.text(self.names[k], current)))
                return steps[::-1]
            j, row = found
            if row.kind != "kept":
                steps.append(
                    LineageStep(
                        self.names[k],
                        current,
                        row.kind,
                        self.text(self.names[k], current),
                        row.old,
                        row.similarity,
                        row.changes,
                        row.words,
                    )
                )
            current, k = row.old, j

    def _forward(self, number: str, k: int) -> list[LineageStep]:
        steps: list[LineageStep] = []
        current = number
        while k + 1 < len(self.names):
            nxt = k + 1
            if self.names[k] in self.fragments:
                break  # a fragment's rule is followed backwards only
            a = self.alignment(self.names[k], self.names[nxt])
            rows = [c for c in a.forward.get(current, []) if c.new is not None]
            if not rows:
                steps.append(LineageStep(self.names[nxt], current, "removed", None, current, 0.0))
                break
            row: RuleChange = max(rows, key=lambda c: c.similarity)
            if row.kind != "kept":
                steps.append(
                    LineageStep(
                        self.names[nxt],
                        row.new,
                        row.kind,
                        self.text(self.names[nxt], row.new),
                        current,
                        row.similarity,
                        row.changes,
                        row.words,
                    )
                )
            current, k = row.new, nxt
        return steps


def chain_names(editions: Sequence[Edition], edition: Edition) -> list[Edition]:
    """The editions a lineage walks through: the same language and the same kind
    (complete editions by date, or fragments in the order given)."""
    same = [e for e in editions if e.lang == edition.lang and (e.kind == "fragment") == (edition.kind == "fragment")]
    if edition.kind != "fragment":
        same.sort(key=lambda e: (e.effective is None, e.effective, e.name))
    return same


def history(number: str, edition: Edition, editions: Sequence[Edition]) -> list[LineageStep]:
    """The lineage of rule ``number`` of ``edition`` across ``editions``, oldest first.

    ``editions`` may hold every edition of every language: the walk keeps those of
    ``edition``'s language and kind (:func:`chain_names`). Alignments are computed
    (and cached for the call). Raises :class:`NotFound` when ``edition`` has no such
    rule.
    """
    if edition.get(number) is None:
        raise NotFound(f"no rule {number} in {edition.name}")
    chain = chain_names(editions, edition)
    if all(e.name != edition.name for e in chain):
        chain.append(edition)
    by_name = {e.name: e for e in chain}
    cache: dict[tuple[str, str], Alignment] = {}

    def alignment(old: str, new: str) -> Alignment:
        if (old, new) not in cache:
            cache[(old, new)] = align(by_name[old], by_name[new])
        return cache[(old, new)]

    def text(name: str, rule_id: str) -> str | None:
        r = by_name[name].get(rule_id)
        return r.text if r else None

    names = [e.name for e in chain]
    fragments = {e.name for e in chain if e.kind == "fragment"}
    return _Walker(names, fragments, alignment, text).walk(number, names.index(edition.name))


# ---------------------------------------------------------------------------
# Stored alignments (knowledge base)


def alignment_path(data_dir: Path, old: str, new: str) -> Path:
    """``data/alignments/en/2009-05-01..2009-07-11.json`` for two editions of one
    language; ``data/alignments/fr-en/{fr}..{en}.json`` across languages."""
    lo, _, o = old.partition("/")
    ln, _, n = new.partition("/")
    folder = lo if lo == ln else f"{lo}-{ln}"
    return Path(data_dir) / ALIGNMENTS_DIR / folder / f"{o}..{n}.json"


def kb_history(kb, number: str, edition: str | None = None, follow: bool | None = None) -> list[LineageStep]:
    """The lineage of rule ``number`` of edition ``edition`` (a name; default the latest
    English; ``fr/latest``: the newest French document holding it,
    :meth:`~comprules.kb.KnowledgeBase.rule_edition`) in a built knowledge base ``kb``
    (:class:`comprules.kb.KnowledgeBase`), walked through the alignments its database
    stores (one indexed query a step: :meth:`comprules.store.Store.pair`); a pair not
    stored is aligned. With no ``edition`` (or ``follow``), a number the edition does not
    print is taken in the last edition that printed it (``502.26a``: Morph, 702.37a now). Raises
    :class:`UsageError` for an unknown edition, :class:`NotFound` for an unknown rule.
    """
    name = kb.rule_edition(edition, number)
    store = kb.store
    row = store.one("SELECT kind FROM rules WHERE edition = ? AND id = ?", (name, number))
    if row is None and (edition is None if follow is None else follow):  # 502.26a: Morph's lineage
        source = kb.printed_in(name, number)
        if source is not None:
            name = source
            row = store.one("SELECT kind FROM rules WHERE edition = ? AND id = ?", (name, number))
    if row is None:
        raise kb.no_rule(name, number)
    if row[0] in ("chapter", "section"):  # the lineages follow rules, subrules, passages
        raise UsageError(
            f"{number} is a {row[0]} of {name}: a history follows a rule or subrule "
            f"(the changes of a section: comprules diff OLD NEW --section {number})"
        )
    found = store.chain_of(name)
    if found is None and kb.info(name).kind == "fragment":
        found = (f"{name}/alone", [name])  # one of a language's many notes: its own lineage
    if found is None:
        raise UsageError(f"no stored alignments for {name} (rebuild the knowledge base)")
    chain, names = found
    fragments = set(names) if chain.endswith("/fragments") else set()

    def alignment(old: str, new: str):
        stored = store.pair(old, new)
        return stored if stored is not None else align(kb.load(old), kb.load(new))

    return _Walker(names, fragments, alignment, store.text).walk(number, names.index(name))


def chains(editions: Sequence[Edition], eras: dict[str, str] | None = None) -> list[dict]:
    """The chains alignments are stored for: per language, the complete editions by
    date, and the fragments by era (``eras``: fragment name → the English edition it
    translates, :func:`comprules.align.crosslang.choose_english`), then by name."""
    eras = eras or {}
    out = []
    for lang in sorted({e.lang for e in editions}):
        dated = [e for e in editions if e.lang == lang and e.kind != "fragment"]
        dated.sort(key=lambda e: (e.effective is None, e.effective, e.name))
        frags = sorted(
            (e for e in editions if e.lang == lang and e.kind == "fragment"),
            key=lambda e: (e.name not in eras, eras.get(e.name, ""), e.name),
        )
        if dated:
            out.append({"lang": lang, "kind": "edition", "editions": [e.name for e in dated]})
        if frags and len(frags) <= MANY_FRAGMENTS:  # more: each stands alone (:func:`stored_pairs`)
            out.append({"lang": lang, "kind": "fragment", "editions": [e.name for e in frags]})
    return out


def english_eras(editions: Sequence[Edition], scores: dict | None = None) -> dict:
    """Each non-English document's :class:`~comprules.align.crosslang.EraChoice`: for a
    complete translated edition, the English edition of its date or the nearest earlier
    (:func:`~comprules.align.translation.english_twin`, a ``TwinChoice``); for a
    fragment, the English edition of its era by structure (``scores``: the scores known,
    :func:`~comprules.align.crosslang.choose_english`)."""
    from .crosslang import choose_english
    from .translation import english_twin

    english = [e for e in editions if e.lang == "en" and e.kind != "fragment"]
    if not english:
        return {}
    out = {}
    for d in editions:
        if d.lang == "en":
            continue
        if is_translation(d):
            try:
                out[d.name] = english_twin(d, english)
            except ValueError:  # older than every English edition given
                continue
        else:
            try:
                out[d.name] = choose_english(d, english, scores)
            except ValueError:  # no English edition of its era among those given
                continue
    return out


@dataclass
class Alignments:
    """What the alignment stage hands the store and the exports: every stored alignment
    with its kind (``editions``, ``fragments``, ``translation``) and details, the chains
    (:func:`chains`), the rows of ``index.json`` and the lexicon. ``kept``: the pairs
    taken unchanged from the previous build."""

    chains: list[dict]
    rows: list[tuple[Alignment, str, dict]]
    kept: list[tuple[str, str]]
    crosslang: list[dict]
    lexicon: dict

    def consecutive(self) -> dict[tuple[str, str], Alignment]:
        """``(old, new)`` → alignment, for the pairs of consecutive editions and fragments."""
        return {(a.old, a.new): a for a, kind, _ in self.rows if kind != "translation"}


#: Fragments of one chain each aligned with this many after it (fragments are partial,
#: so a lineage may skip some): every pair of the five seeds; a chain of more than
#: :data:`~.lineage.MANY_FRAGMENTS` is not aligned (the alignments grow linearly with the
#: fragments, not as their pairs: 1,000 one-line files made 499,500).
FRAGMENT_WINDOW = 4


def stored_pairs(chain: dict) -> list[tuple[str, str]]:
    """The pairs of one chain whose alignments are stored: consecutive complete editions;
    each fragment with the :data:`FRAGMENT_WINDOW` fragments after it (none in a chain of
    more than :data:`~.lineage.MANY_FRAGMENTS`; a lineage walk that looks further back
    aligns the pair it needs when asked)."""
    names = chain["editions"]
    if chain["kind"] == "fragment":
        if len(names) > MANY_FRAGMENTS:
            return []
        return [(a, b) for i, a in enumerate(names) for b in names[i + 1 : i + 1 + FRAGMENT_WINDOW]]
    return list(zip(names, names[1:]))


def compute_alignments(
    editions: Sequence[Edition],
    *,
    eras: dict | None = None,
    previous=None,
    unchanged: frozenset[str] | set[str] = frozenset(),
) -> Alignments:
    """Align what the knowledge base stores: each pair of :func:`stored_pairs`, and each
    non-English document with the English edition of its era (``eras``: the
    :func:`english_eras` already computed). ``previous`` is the last build's
    :class:`~comprules.store.Store`: a pair of editions both in ``unchanged`` (their
    content is as it was then) is taken from it instead of aligned again."""
    from .crosslang import lexicon
    from .translation import lexicon_of

    by_name = {e.name: e for e in editions}
    eras = english_eras(editions) if eras is None else eras
    chain_rows = chains(editions, {k: v.english for k, v in eras.items()})
    rows: list[tuple[Alignment, str, dict]] = []
    kept: list[tuple[str, str]] = []

    def stored(old: str, new: str) -> Alignment | None:
        if previous is None or old not in unchanged or new not in unchanged:
            return None
        return previous.alignment(old, new)

    for chain in chain_rows:
        kind = "fragments" if chain["kind"] == "fragment" else "editions"
        for old, new in stored_pairs(chain):
            a = stored(old, new)
            if a is not None:
                kept.append((old, new))
            else:
                a = align(by_name[old], by_name[new])
            rows.append((a, kind, {}))
    consecutive = {(a.old, a.new): a for a, kind, _ in rows if kind == "editions"}
    crosslang, terms = _align_crosslang(editions, eras, stored, kept, consecutive)
    rows += [(a, "translation", details) for a, details in crosslang]
    # the pairs of the latest translated editions first: their names are the current ones
    recent = sorted(terms, key=lambda t: t.fr_edition, reverse=True)
    translations = {lang: lexicon_of(lang, recent) for lang in sorted({t.lang for t in terms} - {"fr"})}
    lex = {
        "lexicon": lexicon(terms),
        "aligned": [t.to_json() for t in terms if t.lang == "fr"],
        "translations": translations,
        # what the site's lexicon pages show: the checked-in table alone (in its order), and
        # the term pairs of the latest translated edition of each language, with their units
        "table": [[en, frs] for en, frs in lexicon().items()],
        "latest": {
            lang: [t.to_json() for t in terms if t.fr_edition == latest]
            for lang, latest in _latest_translations([e for e in editions if e.name in eras]).items()
        },
    }
    return Alignments(chain_rows, rows, kept, [d for _, d in crosslang], lex)


def _latest_translations(editions: Sequence[Edition]) -> dict[str, str]:
    """Language → its latest complete translated edition among ``editions`` (the Chinese
    CR's newest aligned with an English edition)."""
    out: dict[str, Edition] = {}
    for e in editions:
        if is_translation(e) and (
            e.lang not in out or (e.effective, e.name) > (out[e.lang].effective, out[e.lang].name)
        ):
            out[e.lang] = e
    return {lang: e.name for lang, e in sorted(out.items())}


def write_alignments(
    editions: Sequence[Edition],
    data_dir: Path,
    *,
    eras: dict | None = None,
    previous=None,
    unchanged: frozenset[str] | set[str] = frozenset(),
    computed: Alignments | None = None,
    previous_dir: Path | None = None,
) -> dict:
    """Write the alignments the knowledge base stores as exports under
    ``data_dir/alignments/``: ``{lang}/{old}..{new}.json`` per pair of
    :func:`stored_pairs`, ``{lang}-en/{doc}..{en}.json`` per non-English document,
    ``index.json`` listing the chains and the files, ``lexicon.json``. Returns the
    index. Deterministic output (sorted keys, compact). ``computed``: the
    :func:`compute_alignments` already made (else made here, with ``eras``, ``previous``
    and ``unchanged``). ``previous_dir``: the last build's data folder, whose export of
    each pair taken from its database (``computed.kept``) is linked instead of written
    again (the same bytes)."""
    from ..export import write_atomic

    if computed is None:
        computed = compute_alignments(editions, eras=eras, previous=previous, unchanged=unchanged)
    index: dict = {"chains": computed.chains, "pairs": [], "crosslang": []}
    details = iter(computed.crosslang)
    kept = set(computed.kept) if previous_dir is not None else set()
    for a, kind, _ in computed.rows:
        path = alignment_path(data_dir, a.old, a.new)
        if (a.old, a.new) not in kept or not link_previous(alignment_path(previous_dir, a.old, a.new), path):
            write_atomic(path, json.dumps(a.to_json(), ensure_ascii=False, sort_keys=True, separators=(",", ":")))
        rel = str(path.relative_to(data_dir))
        if kind == "translation":
            index["crosslang"].append({**next(details), "path": rel})
        else:
            index["pairs"].append({"old": a.old, "new": a.new, "path": rel, "counts": a.counts()})
    write_atomic(
        Path(data_dir) / ALIGNMENTS_DIR / "lexicon.json",
        json.dumps(computed.lexicon, ensure_ascii=False, sort_keys=True, indent=1) + "\n",
    )
    write_atomic(
        Path(data_dir) / ALIGNMENTS_DIR / "index.json",
        json.dumps(index, ensure_ascii=False, sort_keys=True, indent=1) + "\n",
    )
    return index


def link_previous(source: Path, dest: Path) -> bool:
    """Hard-link (else copy) a file of the previous build into the new data folder;
    False when ``source`` cannot be read (not there)."""
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, dest)
        except OSError:
            shutil.copy2(source, dest)
    except OSError:
        return False
    return True


def _align_crosslang(
    editions: Sequence[Edition], eras: dict, stored, kept: list, consecutive: dict | None = None
) -> tuple[list, list]:
    """Each non-English document aligned with the English edition of its era, with the
    details of the choice (``{"old", "new", "score", "era", "aligned", …}``), and the
    term pairs found. ``stored(old, new)``: the previous build's alignment, if kept.
    ``consecutive``: the alignments of consecutive editions (``(old, new)`` → alignment),
    through which a translation without an English edition of its date reaches one
    (:func:`translation_routes`)."""
    from .crosslang import align_languages, aligned_terms
    from .translation import align_translation

    by_name = {e.name: e for e in editions}
    rows, terms = [], []
    routes = translation_routes(editions, eras, consecutive or {})
    for doc in editions:
        if doc.name not in eras:
            continue
        choice = eras[doc.name]
        a = stored(doc.name, choice.english)
        if a is not None:
            kept.append((doc.name, choice.english))
        elif routes.get(doc.name) is not None:
            a = align_translation(doc, by_name[choice.english], via=routes[doc.name])
        else:
            a = align_languages(doc, by_name[choice.english])
        found = aligned_terms(doc, by_name[choice.english], a)
        terms.extend(found)
        row = {
            "old": doc.name,
            "new": choice.english,
            "score": choice.score,
            "era": list(choice.era),
            "aligned": sum(1 for c in a.rules if c.old and c.new),
        }
        if hasattr(choice, "same_date"):  # a complete translation: what differs by number
            row.update(
                same_date=choice.same_date,
                # what has no counterpart: by number, or through its chain (translation_routes)
                only_translation=[c.old for c in a.rules if c.new is None and c.old]
                if doc.name in routes
                else list(choice.only_translation),
                only_english=[c.new for c in a.rules if c.old is None and c.new]
                if doc.name in routes
                else list(choice.only_english),
                # its glossary entries paired with the English ones (the site's side-by-side
                # glossary): the pairs translation_terms found with translation.glossary_pairs
                glossary=[
                    list(pair)
                    for pair in dict.fromkeys(
                        (t.fr_id.removeprefix("glossary/"), t.en_id.removeprefix("glossary/"))
                        for t in found
                        if t.fr_id.startswith("glossary/")
                    )
                ],
            )
        rows.append((a, row))
    return rows, terms


def translation_routes(editions: Sequence[Edition], eras: dict, consecutive: dict) -> dict[str, dict]:
    """For each complete translation without an English edition of its date (the Chinese
    edition of 2024-03-08 translates an English edition the corpus lacks; the nearest
    earlier, 2024-02-02, numbers the rules after 724 one lower): its rule and section
    numbers → those of its English twin, or ``None`` for a rule with no counterpart,
    reached through the translation's own earlier editions (the stored alignment of
    zh/2024-02-02 → zh/2024-03-08: its 726.1 was 725.1, which is en/2024-02-02's 725.1;
    its new 725.1, Rad counters, has none); a translation older than every edition of
    its language with a twin of its date, forward to the first such and back through the
    English chain. A translation whose chain reaches no edition with a twin of its date
    is absent (it is paired by number)."""
    out: dict[str, dict] = {}
    same: dict[str, bool] = {}
    by_lang: dict[str, list[Edition]] = defaultdict(list)
    for e in editions:
        if e.name in eras and is_translation(e) and hasattr(eras[e.name], "same_date"):
            by_lang[e.lang].append(e)
            same[e.name] = eras[e.name].same_date
    for docs in by_lang.values():
        docs.sort(key=lambda e: e.effective)
        for before, doc in zip(docs, docs[1:]):
            if same[doc.name] or eras[before.name].english != eras[doc.name].english:
                continue
            link = consecutive.get((before.name, doc.name))
            if link is None or not (same[before.name] or before.name in out):
                continue
            prior = out.get(before.name)  # None: its numbers are the twin's
            route: dict[str, str | None] = {}
            for c in (*link.rules, *link.sections):
                if c.new is None or c.new in route:
                    continue
                route[c.new] = None if c.old is None else (prior.get(c.old) if prior is not None else c.old)
            out[doc.name] = route
        # a translation older than any of its own language with a twin of its date (the
        # first Chinese edition, 2022-06-10, inserts 721 Initiative before en/2022-04-29's
        # 721): forward through its own chain to the first such edition, then back through
        # the English chain from that edition's twin to its own
        english = sorted((e for e in editions if e.lang == "en" and e.effective), key=lambda e: e.effective)
        en_names = [e.name for e in english]
        for k, doc in enumerate(docs):
            if same[doc.name] or doc.name in out:
                continue
            ahead = next((d for d in docs[k + 1 :] if same[d.name]), None)
            twin, far = eras[doc.name].english, eras[ahead.name].english if ahead else None
            if ahead is None or twin not in en_names or far not in en_names:
                continue
            steps = [n.name for n in docs[k : docs.index(ahead) + 1]]
            back = en_names[en_names.index(twin) : en_names.index(far) + 1][::-1]
            maps = [_step(consecutive.get((a, b)), forward=True) for a, b in zip(steps, steps[1:])]
            maps += [_step(consecutive.get((b, a)), forward=False) for a, b in zip(back, back[1:])]
            if any(m is None for m in maps):
                continue
            route = {}
            for number in [r.id for r in doc.rules if r.kind in ("rule", "subrule")] + [
                s.number for s in doc.sections()
            ]:
                at: str | None = number
                for m in maps:
                    at = m.get(at) if at is not None and m is not None else None
                route[number] = at
            out[doc.name] = route
    return out


def _step(alignment, forward: bool) -> dict[str, str | None] | None:
    """One step of a route: the alignment's rule and section numbers, old → new
    (``forward``) or new → old; ``None`` for a number without a counterpart; the whole
    ``None`` when the alignment is not there."""
    if alignment is None:
        return None
    out: dict[str, str | None] = {}
    for c in (*alignment.rules, *alignment.sections):
        key, value = (c.old, c.new) if forward else (c.new, c.old)
        if key is not None and key not in out:
            out[key] = value
    return out


def diff(kb, old: str, new: str, section: str | None = None) -> Alignment:
    """The alignment of editions ``old`` and ``new`` (names, or source files parsed on
    the fly; ``kb`` may be ``None`` when both are files); restricted to ``section``
    (``702``, or a chapter ``7``) when given.

    From a knowledge base: the stored alignment of a consecutive pair (mirrored, for
    the later edition first: ``diff B A`` is the mirror image of ``diff A B``); for two
    editions of one chain that are not consecutive, the rules that share a lineage key
    (:meth:`.lineage.Lineage.join` over the stored alignments, as the site's "any two
    editions" page joins them in the browser), their words compared directly; else
    computed by :func:`align`. Raises :class:`NotFound` when the section selects
    nothing, :class:`UsageError` for an unknown edition or a malformed ``section``
    (:func:`comprules.model.section_filter`).
    """
    if section:
        try:
            section = section_filter(section)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if kb is None:
        from ..corpus import parse_file

        old_ed, new_ed = parse_file(old), parse_file(new)
        result = align(old_ed, new_ed)
    elif names_a_file(old) or names_a_file(new):
        result = align(kb.load(old), kb.load(new))
    else:
        old_name, new_name = kb.resolve_name(old), kb.resolve_name(new)
        result = _stored_diff(kb, old_name, new_name)
        if result is None:
            _one_language(kb, old_name, new_name)
            result = align(kb.load(old_name), kb.load(new_name))
    if section:
        result = result.in_section(section)
        if not result.rules and not result.sections:
            raise NotFound(f"nothing in section {section} of {result.old} or {result.new}")
    return result


def _one_language(kb, old: str, new: str) -> None:
    """Raise :class:`UsageError` for two editions of two languages that the build did not
    pair (a translation is paired with one English edition only: aligned by words, every
    rule of the other would be "removed" and "added"), naming the pairs there are."""
    langs = kb.info(old).lang, kb.info(new).lang
    if langs[0] == langs[1]:
        return
    pairs = [f"{n} with {t}" for n in (old, new) if (t := kb.twin_name(n)) is not None]
    hint = f" (the build paired {' and '.join(pairs)})" if pairs else ""
    raise UsageError(
        f"{old} and {new} are in two languages: a diff compares editions of one language, or a "
        f"translation with the English edition it was paired with{hint}"
    )


def _stored_diff(kb, old: str, new: str) -> Alignment | None:
    """A stored pair (either way: rows only, no edition loaded), or the lineage join of
    two editions of one chain, from the database (:meth:`comprules.store.Store.joined`)."""
    store = kb.store
    a = store.alignment(old, new, either_way=True)
    if a is not None:
        return a
    found = store.chain_of(old)
    if found is None or found[0].endswith("/fragments") or new not in found[1]:
        return None
    from .alignment import align_joined

    pairs = store.joined(old, new)
    spans = (store.reference_parts(old), store.reference_parts(new))
    return align_joined(kb.load(old), kb.load(new), pairs, store.rewritten_between(old, new), spans)


def joined(lineage, old_ed: Edition, new_ed: Edition) -> Alignment:
    """:func:`~.alignment.align_joined` on the lineage keys ``old_ed`` and ``new_ed``
    share (:class:`.lineage.Lineage`); a rule rewritten in place between the two
    editions (after the earlier one, up to the later one; by the later edition's rule's
    own key) is ``rewritten``."""
    from .alignment import align_joined

    pairs = lineage.join(old_ed.name, new_ed.name)
    lo, hi = sorted((old_ed.name, new_ed.name))
    keys = lineage.key.get(hi, {})  # the later edition's rule, whichever way the pair is asked
    rewrites = lineage.rewritten()
    rewritten = {
        (a, b)
        for a, b in pairs
        if any(lo < e <= hi for e in rewrites.get(keys.get(b if new_ed.name == hi else a, ""), ()))
    }
    return align_joined(old_ed, new_ed, pairs, rewritten)


#: What a row of a translation beside its English edition is, in the words of that pair
#: (nothing was removed or renumbered: one side has no counterpart, or numbers it otherwise).
_ACROSS = {
    "removed": "no counterpart in English",
    "added": "not in the translation",
    "renumbered": "numbered otherwise",
    "moved": "numbered otherwise",
}


def format_diff(a: Alignment, limit: int | None = None) -> str:
    """``comprules diff`` as text: counts, changed sections, changed rules with words."""
    across = a.old.partition("/")[0] != a.new.partition("/")[0]
    if across and a.old.startswith("en/"):  # English first: what each side lacks, the other way
        words = {**_ACROSS, "removed": "not in the translation", "added": "no counterpart in English"}
    else:
        words = _ACROSS if across else {}
    counts = a.facet_counts()
    order = sorted(counts, key=lambda f: (_FACET_ORDER.index(f) if f in _FACET_ORDER else len(_FACET_ORDER), f))
    summary = ", ".join(f"{counts[k]} {words.get(k, k)}" for k in order)
    unchanged = sum(1 for c in a.rules if c.facet == "unchanged")
    if unchanged:
        # a translation and its English edition: rules paired, their words not compared
        said = "paired with their translation (words are not compared across languages)" if across else "unchanged"
        summary += f"{', ' if summary else ''}{unchanged} {said}"
    lines = [f"{a.old} → {a.new}: {summary or 'no rules'}"]
    changed_sections = [s for s in a.sections if s.kind not in ("kept", "edited")]
    if changed_sections:
        lines.append("sections:")
        for s in changed_sections:
            lines.append(f"  {_side(s.old, s.old_title)} → {_side(s.new, s.new_title)}  {words.get(s.kind, s.kind)}")
    changed = [c for c in a.rules if c.facet != "unchanged"]
    if changed:
        lines.append("rules:")
    facets = words
    for c in changed[:limit]:
        said = "; ".join(_word_change(w) for w in c.changes[:6]) + (" …" if len(c.changes) > 6 else "")
        sim = f" ({c.similarity:.0%} of words kept)" if c.edited else ""
        lines.append(
            f"  {c.old or '—'} → {c.new or '—'}  {facets.get(c.facet, c.facet)}{sim}" + (f": {said}" if said else "")
        )
    if limit is not None and len(changed) > limit:
        lines.append(f"  … {len(changed) - limit} more (--json for all)")
    return "\n".join(lines)


def _side(number: str | None, title: str | None) -> str:
    if number is None:
        return "—"
    return f"{number} {title}" if title else number


#: The quotes a word change is shown between, the first whose marks the words lack (a trial:
#: +“具有“于此传纪” for an inserted text holding a quote of its own).
_SHOWN_QUOTES = (("“", "”"), ("«", "»"), ("「", "」"), ("‹", "›"))


def _word_change(w: WordChange) -> str:
    def cut(s: str) -> str:
        return s if len(s) <= 60 else s[:57] + "…"

    words = (w.old or "") + (w.new or "")
    left, right = next((q for q in _SHOWN_QUOTES if q[0] not in words and q[1] not in words), _SHOWN_QUOTES[0])
    if w.op == "insert":
        return f"+{left}{cut(w.new)}{right}"
    if w.op == "delete":
        return f"−{left}{cut(w.old)}{right}"
    return f"{left}{cut(w.old)}{right} → {left}{cut(w.new)}{right}"


def format_history(number: str, steps: list[LineageStep]) -> str:
    """``comprules history`` as text: one line per step, oldest first."""
    lines = [f"{number}: {len(steps)} step{'s' if len(steps) != 1 else ''}"]
    for s in steps:
        moved = f" (was {s.previous})" if s.previous and s.previous != s.number else ""
        words = "; ".join(_word_change(w) for w in s.changes[:4]) + (" …" if len(s.changes) > 4 else "")
        lines.append(f"  {s.edition}  {s.number}  {s.facet}{moved}" + (f": {words}" if words else ""))
    return "\n".join(lines)


#: The order of the facets in ``comprules diff``'s summary: what a judge reads first.
_FACET_ORDER = (
    "added",
    "edited",
    "moved + edited",
    "rewritten",
    "moved + rewritten",
    "typography",
    "moved + typography",
    "removed",
    "split",
    "split + edited",
    "merged",
    "merged + edited",
    "moved",
)
