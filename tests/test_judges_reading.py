"""What a judge reads (issue 22): the site offers what the knowledge base holds.

Real editions of ``../shared/corpus/en`` and a French seed.
"""

from __future__ import annotations

from comprules.build import build


def test_the_search_page_offers_only_the_languages_the_knowledge_base_holds(tmp_path, en_dir, seed_files):
    # issue 22, 3: a knowledge base without Chinese editions offered 简体中文
    kb = tmp_path / "kb"
    build([en_dir / "1999-04-23.txt", seed_files[2]], kb)
    page = (kb / "site" / "search.html").read_text(encoding="utf-8")
    menu = page[page.index('<select name="lang"') : page.index("</select>", page.index('<select name="lang"'))]
    assert 'value="en"' in menu and 'value="fr"' in menu
    assert 'value="zh"' not in menu and "简体中文" not in menu


def test_a_punctuation_only_edit_is_set_apart_and_named_and_typography_can_be_hidden(tmp_path, en_dir):
    # issue 22, 5: 722.3a's "," → "." of 2026-08-07 was an almost invisible red comma
    kb = tmp_path / "kb"
    build([en_dir / "2026-06-19.txt", en_dir / "2026-08-07.txt"], kb, only=("data", "site"))
    bulletin = kb / "site" / "diff" / "en" / "2026-06-19..2026-08-07"
    pages = "".join(p.read_text(encoding="utf-8") for p in sorted(bulletin.glob("*.html")))
    at = pages.index('id="722.3a"') if 'id="722.3a"' in pages else pages.index("722.3a")
    row = pages[at : pages.index("</section>", at)]
    assert '<del class="p">,</del>' in row and '<ins class="p">.</ins>' in row
    assert '<span class="named">comma → full stop</span>' in row
    index = (bulletin / "index.html").read_text(encoding="utf-8")
    assert '<input type="checkbox" data-hide="typography"> Hide typography-only changes' in index
    history = next((kb / "site" / "history").rglob("*.html")).read_text(encoding="utf-8")
    assert 'data-hide="typography"' in history and 'class="k k-' in history


def test_a_repaired_edition_says_so_on_its_contents_page_and_prints_the_restored_marks(tmp_path, en_dir):
    # issue 22, 4: en/2008-05-01 printed "can?t", "?Morph [cost]?"
    kb = tmp_path / "kb"
    build([en_dir / f"{n}.txt" for n in ("2008-02-01", "2008-05-01", "2008-07-15")], kb, only=("data", "site"))
    edition = kb / "site" / "en" / "2008-05-01"
    contents = (edition / "index.html").read_text(encoding="utf-8")
    assert (
        '<p class="meta restored">4,721 characters restored from en/2008-02-01 and en/2008-07-15: '
        "the source file prints “?” for them"
    ) in contents
    assert "Handling &quot;Infinite&quot; Loops" in contents and "?Infinite?" not in contents
    keywords = (edition / "502.html").read_text(encoding="utf-8")
    assert "can?t" not in keywords and keywords.count("can&#39;t") + keywords.count("can't") >= 10
    assert "restored" not in (kb / "site" / "en" / "2008-02-01" / "index.html").read_text(encoding="utf-8")


def test_words_deleted_before_a_quote_are_shown_before_it_as_the_old_text_printed_them(tmp_path, en_dir):
    # a trial: the history of 702.37a showed `"<del>The phrase</del> Morph [cost]"` for 2004-10-01,
    # whose old text was `The phrase "Morph [cost]"`: a reader rebuilding the old wording got it wrong
    kb = tmp_path / "kb"
    build([en_dir / "2004-06-01.txt", en_dir / "2004-10-01.txt"], kb, only=("data", "site"))
    page = (kb / "site" / "history" / "en" / "502.26a.html").read_text(encoding="utf-8")
    assert "<del>The phrase</del> &quot;Morph [cost]&quot; means" in page
    assert "&quot;<del>The phrase</del>" not in page


def test_a_quote_that_came_or_went_with_the_words_is_shown_with_them(tmp_path, en_dir):
    # a second trial: `somehow <del>loops</del> <ins>enters a "loop</ins>,"` lost the old quote
    # of `somehow "loops," repeating`
    kb = tmp_path / "kb"
    build([en_dir / "1999-11-01.txt", en_dir / "2001-09-24.txt"], kb, only=("data", "site"))
    pages = "".join(p.read_text(encoding="utf-8") for p in (kb / "site" / "history" / "en").glob("*.html"))
    assert "somehow <del>&quot;loops</del> <ins>enters a &quot;loop</ins>,&quot; repeating" in pages
