"""No address of the site disappears (issue 21): a reader's bookmark, a judge's link in a
forum post, a bot's URL keep answering through the site's refactoring.

``tests/fixtures/site_addresses.txt.gz`` lists every address of the site of the whole
corpus (74 English and 18 Chinese editions, 5 French seeds) as built on 2026-12-03: its
pages, ``{lang}/latest/``, the data files, the zips and the feed; not the scripts and
styles the pages load (``static/``, ``goto/``, ``lineage/``, ``search/``,
``diff/data/``), which only the site's own pages ask for. Each must still be a file of
the site built from the same sources: the page itself, or a redirect page to where its
content went; an older edition's zip is made by the server when asked. The list only grows: ``python tests/test_site_addresses.py KB/site`` adds
the addresses of a new build to it (an address it lists and the build lacks is printed,
not dropped).
"""

from __future__ import annotations

import gzip
import io
import sys
import zipfile
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from comprules.kb import KnowledgeBase
from comprules.server import create_app

ADDRESSES = Path(__file__).resolve().parent / "fixtures" / "site_addresses.txt.gz"
#: The site's own assets: not addresses anyone links to from outside.
ASSETS = ("static/", "goto/", "lineage/", "search/", "diff/data/")


def site_addresses(site: Path) -> set[str]:
    """Every address of a built site (as ``en/2026-08-07/702.html``), assets and the
    site's own dot-files left out."""
    out = set()
    for path in site.rglob("*"):
        rel = path.relative_to(site).as_posix()
        if path.is_file() and not rel.startswith(ASSETS) and not any(p.startswith(".") for p in rel.split("/")):
            out.add(rel)
    return out


def listed() -> list[str]:
    with gzip.open(ADDRESSES, "rt", encoding="utf-8") as fh:
        return fh.read().split()


@pytest.mark.slow
def test_every_address_of_the_site_of_2026_12_03_is_still_there(full_kb):
    site = full_kb[0] / "site"
    addresses = listed()
    assert len(addresses) >= 24_989 and len(set(addresses)) == len(addresses)
    kinds = {a.split("/")[0] for a in addresses}
    assert {"en", "zh", "fr", "diff", "history", "compare", "data", "download", "index.html", "feed.xml"} <= kinds
    assert {"en/latest/702.html", "history/en/702.37a.html", "diff/en/2009-05-01..2009-07-11/index.html"} <= set(
        addresses
    )
    # an older edition's zip is made by the server when asked (site.bundle.site_downloads,
    # 2026-12-06): the address answers served, the same bytes as `comprules export --site`
    made = [a for a in addresses if a.startswith("download/") and not (site / a).is_file()]
    names = {e.name for e in KnowledgeBase(full_kb[0]).editions}
    assert len(made) == 90 and all(a.removeprefix("download/").removesuffix(".zip") in names for a in made)
    with TestClient(create_app(full_kb[0])) as client:
        for a in (made[0], made[len(made) // 2], made[-1]):
            got = client.get("/" + a)
            assert got.status_code == 200 and zipfile.ZipFile(io.BytesIO(got.content)).testzip() is None, a
    missing = [a for a in addresses if not (site / a).is_file() and a not in made]
    assert missing == [], f"{len(missing)} addresses gone without a redirect page, among them {missing[:8]}"


def main(argv: list[str]) -> int:
    """Add the addresses of the built site ``argv[1]`` to the list (never drop one)."""
    site = Path(argv[1])
    old = set(listed()) if ADDRESSES.is_file() else set()
    new = site_addresses(site)
    gone = sorted(old - new)
    if gone:
        print(f"{len(gone)} listed addresses are not in {site} (kept in the list), e.g. {gone[:5]}")
    with gzip.GzipFile(ADDRESSES, "wb", mtime=0) as fh:
        fh.write(("\n".join(sorted(old | new)) + "\n").encode("utf-8"))
    print(f"{len(old | new)} addresses ({len(new - old)} new) in {ADDRESSES}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
