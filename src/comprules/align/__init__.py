"""The alignment stage: which rule of one edition is which rule of another.

Runs after parsing and reference extraction (it reads :mod:`comprules.model` editions
and :mod:`comprules.references`), before the index and the site, which read what it
stores in ``data/alignments/``. Modules:

``alignment``
    :func:`~.alignment.align`: two editions of one language, rule by rule, by their
    words (kept, edited, renumbered, added, removed, split, merged), and the word
    changes of each rule (:func:`~.alignment.word_changes`).
``history``
    one rule's lineage through a chain of editions (:func:`~.history.history`,
    :func:`~.history.kb_history`), ``diff`` on a knowledge base, and the alignments
    the build stores (:func:`~.history.write_alignments`).
``crosslang``
    a document in another language against the English edition of its era, by
    structure, and the bilingual lexicon.
``evaluate``
    a truth set built from the corpus's own structure, to score an alignment.
"""

from .changes import Alignment, RuleChange, SectionChange, WordChange

__all__ = ["Alignment", "RuleChange", "SectionChange", "WordChange", "align", "tokens", "word_changes"]


def __getattr__(name: str):
    # The matching machinery (its regular expressions, reference extraction) is imported
    # when asked for: reading stored rows (``changes``) needs none of it.
    if name in ("align", "tokens", "word_changes"):
        from . import alignment

        return getattr(alignment, name)
    raise AttributeError(name)
