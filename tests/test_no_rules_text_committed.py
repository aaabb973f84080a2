"""No text of the CR, of the seeds or of the Chinese translation is committed.

A project rule (``/work/shared``'s brief): the editions are read from
``COMPRULES_CORPUS`` (``en/`` and ``zh/``) and ``COMPRULES_SEEDS`` at run time, never
copied into the repository. This test reads every text file ``git ls-files`` lists and
reports each run that appears verbatim in a corpus or seed file:

* **words** (English and French): :data:`WORDS` consecutive words or more, after
  folding case and dropping punctuation (a word is a run of letters or digits, so
  "702.19b" is two words, "player’s" two). Twelve words is longer than any name or
  heading of the CR ("Damage Assignment Order", "State-Based Actions") and than the
  stock phrases code and docs use, and shorter than nearly every rule sentence;
* **Han characters**: :data:`HANS` consecutive ones or more (punctuation and spaces
  between them ignored, a Latin letter or a digit ends a run). The Chinese CR's terms
  are short (死触, 鹏洛客, 战斗伤害步骤; glossary headwords: at most a dozen), and a
  run of fourteen is a clause.

Files under ``tests/`` may quote up to :data:`TEST_WORDS` - 1 words: a test asserts the
text it parsed, and the shortest rules and glossary senses it checks ("Trample", a
reminder text, one sentence of an example) are under thirty words; a quotation of
thirty words or more is a paragraph, and a fixture that long should be written by us
or read from the corpus at run time.

Speed: the corpus is read once; each distinct line (a rule, an example, a glossary
sense, whatever the edition) is shingled once, and the shingles' hashes go into a set
(``hash`` of the joined words: salted per process, which is all a set needs). The
committed files are shingled the same way, across their lines (a quotation wrapped
over several lines of a docstring is caught), and consecutive hits are merged into
one reported run. A run is reported with its file, its first line and its words.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Consecutive words that may not appear verbatim in a corpus or seed line…
WORDS = 12
#: …under tests/ (see the module doc)…
TEST_WORDS = 30
#: …and consecutive Han characters.
HANS = 14

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: A word: letters or digits, Han characters left out.
WORD = re.compile(rf"[^\W_{_HAN}]+")
#: A Han character, or something that ends a Han run (a letter or a digit).
HAN_OR_BREAK = re.compile(rf"([{_HAN}])|[^\W_{_HAN}]")


@dataclass(frozen=True)
class Run:
    """A committed run found in the corpus: file, 1-based line, kind, its text."""

    path: str
    line: int
    kind: str
    size: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.size} {self.kind} found in the corpus: {self.text[:160]}"


def _words(text: str) -> list[tuple[str, int]]:
    """(folded word, offset) of every word of ``text``."""
    return [(m.group().casefold(), m.start()) for m in WORD.finditer(text)]


def _han_runs(text: str) -> list[list[tuple[str, int]]]:
    """The runs of Han characters of ``text``, each a list of (character, offset)."""
    runs: list[list[tuple[str, int]]] = [[]]
    for m in HAN_OR_BREAK.finditer(text):
        if m.group(1):
            runs[-1].append((m.group(1), m.start()))
        elif runs[-1]:
            runs.append([])
    return [r for r in runs if r]


def _keys(items: list[str], size: int, glue: str) -> list[int]:
    return [hash(glue.join(items[i : i + size])) for i in range(len(items) - size + 1)]


@dataclass
class Corpus:
    """The hashes of every :data:`WORDS`-word and :data:`HANS`-character shingle of
    the corpus and seed files, line by line."""

    words: set[int]
    hans: set[int]

    @classmethod
    def read(cls, files: list[Path]) -> "Corpus":
        lines: set[str] = set()
        for path in files:
            raw = path.read_bytes()
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                text = raw.decode("cp1252", errors="replace")
            lines.update(text.splitlines())
        words: set[int] = set()
        hans: set[int] = set()
        for line in lines:
            found = [w for w, _ in _words(line)]
            if len(found) >= WORDS:
                words.update(_keys(found, WORDS, " "))
            for run in _han_runs(line):
                if len(run) >= HANS:
                    hans.update(_keys([c for c, _ in run], HANS, ""))
        return cls(words, hans)

    def scan(self, path: str, text: str, words: int = WORDS) -> list[Run]:
        """The runs of ``text`` (a file's content) found in the corpus: at least
        ``words`` words, or :data:`HANS` Han characters."""
        out = []
        found = _words(text)
        out += self._runs(
            path, text, found, _keys([w for w, _ in found], WORDS, " "), self.words, WORDS, words, "words"
        )
        for run in _han_runs(text):
            keys = _keys([c for c, _ in run], HANS, "")
            out += self._runs(path, text, run, keys, self.hans, HANS, HANS, "Han characters")
        return out

    @staticmethod
    def _runs(path, text, items, keys, known, size, least, kind) -> list[Run]:
        out, i = [], 0
        while i < len(keys):
            if keys[i] not in known:
                i += 1
                continue
            j = i
            while j + 1 < len(keys) and keys[j + 1] in known:
                j += 1
            count = j - i + size
            if count >= least:
                start, end = items[i][1], items[j + size - 1][1]
                snippet = " ".join(text[start : end + len(items[j + size - 1][0])].split())
                out.append(Run(path, text.count("\n", 0, start) + 1, kind, count, snippet))
            i = j + 1
        return out


@pytest.fixture(scope="module")
def corpus_files(en_files, zh_files, seed_files) -> list[Path]:
    """The 74 English and 18 Chinese editions and the 5 seeds (``COMPRULES_CORPUS``,
    ``COMPRULES_SEEDS``: see ``conftest.py``)."""
    return [*en_files, *zh_files, *seed_files]


@pytest.fixture(scope="module")
def corpus(corpus_files) -> Corpus:
    return Corpus.read(corpus_files)


def committed_runs(corpus: Corpus, root: Path = ROOT) -> list[Run]:
    """Every run of the text files ``git ls-files`` lists in ``root`` found in the corpus."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    out = []
    for name in sorted(filter(None, listed.decode("utf-8").split("\0"))):
        path = root / name
        if not path.is_file():  # deleted in the worktree, not yet committed
            continue
        raw = path.read_bytes()
        if b"\0" in raw:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        out += corpus.scan(name, text, TEST_WORDS if name.startswith("tests/") else WORDS)
    return out


def test_no_committed_file_holds_a_run_of_the_corpus_or_the_seeds(corpus):
    runs = committed_runs(corpus)
    assert not runs, "text of the corpus committed:\n" + "\n".join(map(str, runs))


def test_the_corpus_is_shingled_whole(corpus):
    # tens of thousands of distinct rule sentences, English and Chinese
    assert len(corpus.words) > 200_000 and len(corpus.hans) > 150_000, (len(corpus.words), len(corpus.hans))


def _line_of(files: list[Path], predicate) -> str:
    for path in files:
        for line in path.read_text(encoding="utf-8-sig", errors="replace").splitlines():
            if predicate(line):
                return line
    raise AssertionError("no such line in the corpus")


def test_a_planted_rule_sentence_is_reported_with_its_file_and_line(corpus, corpus_files):
    """A sentence of 702.19b (read from the corpus now, never committed), planted in a
    docstring wrapped over two lines, in French-style case, is found; twelve words of
    it are enough, eleven are not."""
    en = [p for p in corpus_files if p.parent.name == "en"]
    line = _line_of(en, lambda s: s.startswith("702.19b"))
    words = [w for w, _ in _words(line)][2:]  # without the number
    planted = '"""Notes.\n\n' + " ".join(words[:6]).upper() + ",\n    " + " ".join(words[6:14]) + '\n"""\n'
    runs = corpus.scan("src/x.py", planted)
    assert [(r.path, r.line, r.kind, r.size) for r in runs] == [("src/x.py", 3, "words", 14)], runs
    assert runs[0].text.split()[-1] == words[13]
    assert corpus.scan("src/x.py", " ".join(words[:11])) == []
    assert corpus.scan("src/x.py", " ".join(words[:12]))[0].size == 12
    # under tests/ thirty words are needed
    assert corpus.scan("tests/x.py", " ".join(words[:14]), TEST_WORDS) == []


def test_a_planted_chinese_clause_is_reported(corpus, corpus_files):
    """Fourteen Han characters of the Chinese 702.19b are found across punctuation and
    line breaks; thirteen are not; a digit breaks the run."""
    zh = [p for p in corpus_files if p.parent.name == "zh"]
    line = _line_of(zh, lambda s: s.startswith("702.19b"))
    hans = "".join(c for c, _ in next(r for r in _han_runs(line) if len(r) >= 20))
    planted = f"# {hans[:5]}，\n# {hans[5:14]}\n"
    runs = corpus.scan("src/y.py", planted)
    assert [(r.line, r.kind, r.size) for r in runs] == [(1, "Han characters", 14)], runs
    assert corpus.scan("src/y.py", hans[:13]) == []
    assert corpus.scan("src/y.py", hans[:7] + "7" + hans[7:14]) == []
