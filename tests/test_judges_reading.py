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
