"""Every link a link (``web/links.py``): URLs, arXiv ids and DOIs in a paper's abstract, comments and
reference list become safe links (http(s) only, escaped, ``rel="noopener nofollow"``), an arXiv id to the
stored paper or else to arxiv.org, a DOI to doi.org; math and the search words' marks are kept whole; a URL
with quotes or ``javascript:`` never becomes a link that runs anything. On the page of arXiv:1706.03762
with its real e-print read (tests/fulltext_server.py), in English and 中文, no URL, arXiv id or DOI of the
abstract or the reference list is plain text, and the page links to arXiv's PDF (and HTML where arXiv makes
one)."""

from __future__ import annotations

import shutil
from pathlib import Path

import lxml.html
import pytest

from papersift.web.display_text import MATH
from papersift.web.display_text import linked as shown_linked
from papersift.web.links import found, html_url, linked, reference
from tests.fulltext_server import FulltextServer
from tests.support.data import write_jsonl
from tests.support.inproc import app_client, invoke
from tests.test_fulltext import ATTENTION, _cited, _record

HOSTILE = [
    'https://x.org/a"onmouseover="alert(1)',
    "https://x.org/a'onfocus='alert(2)' autofocus='",
    'see https://x.org/"><script>alert(3)</script>',
    "javascript:alert(4)",
    "JaVaScRiPt:alert(5)//https://x.org/",
    "data:text/html,<script>alert(6)</script>",
    "https://x.org/`onclick=alert(7)`",
    "https://\\x.org/a",
]


def _anchors(html: str) -> list[lxml.html.HtmlElement]:
    return list(lxml.html.fragment_fromstring(html, create_parent="div").iter("a"))


def _loose_text(element: lxml.html.HtmlElement) -> str:
    """The text of ``element`` outside its links (what a reader sees as plain text)."""
    parts = [element.text or ""]
    for child in element:
        if child.tag != "a":
            parts.append(_loose_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def test_urls_arxiv_ids_and_dois_become_links_to_their_places() -> None:
    text = (
        "Code at https://github.com/a/b. Data (https://x.org/set_(v2)). Built on arXiv:1706.03762v5 and "
        "CoRR abs/1409.0473, after hep-th/0005057; see doi:10.1145/3065386, and/1234567 or 1234.5678."
    )
    html = str(linked(text, stored={"1409.0473"}))
    links = {a.text_content(): (a.get("href"), a.get("rel")) for a in _anchors(html)}
    assert links == {
        "https://github.com/a/b": ("https://github.com/a/b", "noopener nofollow"),
        "https://x.org/set_(v2)": ("https://x.org/set_(v2)", "noopener nofollow"),
        "arXiv:1706.03762v5": ("https://arxiv.org/abs/1706.03762v5", "noopener nofollow"),
        "abs/1409.0473": ("/abs/1409.0473", None),  # stored: its page here
        "hep-th/0005057": ("https://arxiv.org/abs/hep-th/0005057", "noopener nofollow"),
        "doi:10.1145/3065386": ("https://doi.org/10.1145/3065386", "noopener nofollow"),
    }
    assert html.endswith("and/1234567 or 1234.5678.")  # no archive, no prefix: not ids
    assert [f.kind for f in found(text)] == ["url", "url", "arxiv", "arxiv", "arxiv", "doi"]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_url_with_quotes_or_javascript_never_becomes_a_link_that_runs(text: str) -> None:
    html = str(linked(text))
    tree = lxml.html.fragment_fromstring(html, create_parent="div")
    assert not list(tree.iter("script")) and "<script" not in html
    for element in tree.iter():
        assert not [name for name in element.attrib if name.startswith("on") or name == "autofocus"]
    for a in tree.iter("a"):
        assert a.get("href").startswith("https://x.org/") and set(a.attrib) == {"href", "rel"}
        assert not any(c in a.get("href") for c in "\"'<>`\\")
    assert tree.text_content() == text  # every character still shown, as text


def test_math_and_the_search_words_marks_are_kept_whole() -> None:
    text = (
        r"Attention in $\mathcal{O}(n \log n)$ time, code at https://github.com/attention/x; $a_{http://b}$."
    )
    html = str(shown_linked(text, ["attention", "time"]))
    assert r"$\mathcal{O}(n \log n)$" in html and "$a_{http://b}$" in html  # KaTeX's, untouched
    assert html.startswith("<mark>Attention</mark> in") and "<mark>time</mark>" in html
    (a,) = _anchors(html)
    assert a.get("href") == "https://github.com/attention/x"
    assert lxml.html.tostring(a, encoding="unicode").count("<mark>attention</mark>") == 1
    assert str(shown_linked("a & b < c", None)) == "a &amp; b &lt; c"


def test_a_reference_links_its_arxiv_id_to_the_stored_paper_else_to_arxiv_and_its_doi_and_url() -> None:
    def refs(**entry: object) -> dict[str, str | None]:
        html = str(
            reference({"text": "", "arxiv_id": None, "doi": None, "url": None, "resolved": None} | entry)
        )
        return {a.text_content(): a.get("href") for a in _anchors(html)}

    text = "J. Ba. Layer normalization. arXiv preprint arXiv:1607.06450v2, 2016."
    assert refs(text=text, arxiv_id="1607.06450") == {
        "arXiv:1607.06450v2": "https://arxiv.org/abs/1607.06450v2"  # once: the text shows it
    }
    assert refs(text=text, arxiv_id="1607.06450", resolved="1607.06450") == {
        "arXiv:1607.06450v2": "/abs/1607.06450"
    }
    # what the entry names but its text does not show is linked after it
    assert refs(text="A. Author. A title found by its title.", resolved="1409.0473", doi="10.1/x") == {
        "arXiv:1409.0473": "/abs/1409.0473",
        "doi:10.1/x": "https://doi.org/10.1/x",
    }
    assert refs(text="<b>x</b>", url="javascript:alert(1)", arxiv_id="1601.06733") == {
        "arXiv:1601.06733": "https://arxiv.org/abs/1601.06733"
    }
    assert "&lt;b&gt;x&lt;/b&gt;" in str(reference({"text": "<b>x</b>", "url": "javascript:alert(1)"}))


def test_arxivs_html_version_is_arxiv_orgs_since_december_2023_and_ar5ivs_before() -> None:
    assert html_url("2501.10120") == "https://arxiv.org/html/2501.10120"
    assert html_url("2312.00001") == "https://arxiv.org/html/2312.00001"
    assert html_url("2311.99999") == "https://ar5iv.labs.arxiv.org/html/2311.99999"  # arXiv Labs' before
    assert html_url("hep-th/0005057") == "https://ar5iv.labs.arxiv.org/html/hep-th/0005057"
    assert html_url("venue:colm-2025-17") is None


NAMING = {
    **_record("2401.00007", "Linked abstracts", "2024-01-02"),
    "categories": ["cs.CL"],
    "primary_category": "cs.CL",
    "abstract": "We build on arXiv:1409.0473 and arXiv:2310.99999 (https://example.org/a?b=1&c=2), see "
    'doi:10.1145/3065386 and $x_{i} = https://not.a/link$; not https://x.org/a"onmouseover="alert(1).',
    "comments": "Code: https://github.com/example/linked. javascript:alert(1)",
}


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """1706.03762 with its real e-print read and the four papers it cites that the 20k file holds, and a
    paper whose abstract names places."""
    home = tmp_path_factory.mktemp("links")
    records = [ATTENTION, NAMING, *_cited(shared_data)]
    invoke("ingest", str(write_jsonl(home / "papers.jsonl", records)), home=home)
    with FulltextServer() as server:
        invoke("fulltext", "1706.03762", home=home, env=server.env())
    return home


@pytest.fixture
def home(stored: Path, tmp_path: Path) -> Path:
    shutil.copytree(stored, tmp_path / "home")
    return tmp_path / "home"


def _one(page: str, xpath: str) -> lxml.html.HtmlElement:
    (element,) = lxml.html.fromstring(page).xpath(xpath)
    return element


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_url_arxiv_id_or_doi_of_the_references_is_plain_text(home: Path, lang: str) -> None:
    with app_client(home) as client:
        page = client.get(f"/abs/1706.03762?lang={lang}").text
    refs = _one(page, '//section[@class="references"]')
    items = refs.xpath(".//li")
    assert len(items) == 40
    naming = [li for li in items if found(li.text_content()) or li.xpath('.//span[@class="ref-link"]')]
    assert len(naming) == 22  # the 22 entries that name an arXiv id (the count)
    for li in items:
        assert found(_loose_text(li)) == [], lxml.html.tostring(li, encoding="unicode")
    hrefs = [a.get("href") for li in naming for a in li.iter("a")]
    assert sorted(h for h in hrefs if h.startswith("/abs/")) == [
        "/abs/1409.0473",
        "/abs/1601.06733",
        "/abs/1608.05859",
        "/abs/1703.03130",
    ]
    assert sum(h.startswith("https://arxiv.org/abs/") for h in hrefs) == 18
    heading = refs.xpath(".//h2")[0].text_content()
    assert ("References" if lang == "en" else "参考文献") in heading
    assert 'href="https://arxiv.org/pdf/1706.03762"' in page
    assert 'href="https://ar5iv.labs.arxiv.org/html/1706.03762"' in page  # 2017: arXiv Labs' HTML


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_abstracts_places_are_links_on_its_page_and_in_its_listing(home: Path, lang: str) -> None:
    with app_client(home) as client:
        page = client.get(f"/abs/2401.00007?lang={lang}").text
        listing = client.get(f"/list/cs.CL/2024-01-02?lang={lang}").text
    abstract = _one(page, '//article[@class="paper-page"]//p[@class="abstract"]')
    hrefs = {a.text_content(): a.get("href") for a in abstract.iter("a")}
    assert hrefs == {
        "arXiv:1409.0473": "/abs/1409.0473",  # stored: here
        "arXiv:2310.99999": "https://arxiv.org/abs/2310.99999",
        "https://example.org/a?b=1&c=2": "https://example.org/a?b=1&c=2",
        "doi:10.1145/3065386": "https://doi.org/10.1145/3065386",
        "https://x.org/a": "https://x.org/a",
    }
    assert (
        found(_loose_text(abstract), MATH) == [] and "$x_{i} = https://not.a/link$" in abstract.text_content()
    )
    assert "onmouseover" not in {n for a in abstract.iter("a") for n in a.attrib}
    comments = _one(page, '//p[@class="comments"]')
    assert [a.get("href") for a in comments.iter("a")] == ["https://github.com/example/linked"]
    assert "javascript:" not in {a.get("href", "")[:11] for a in lxml.html.fromstring(page).iter("a")}
    row = _one(listing, '//article[@id="p-2401.00007"]//p[contains(@class, "abstract")]')
    assert found(_loose_text(row), MATH) == [] and len(list(row.iter("a"))) == 5
    html_link = _one(page, '//a[@class="html-version"]')
    assert html_link.get("href") == "https://arxiv.org/html/2401.00007"
    title = "arXiv's HTML version of the paper" if lang == "en" else "论文在 arXiv 上的 HTML 版本"
    assert html_link.get("title") == title


def test_search_results_keep_the_query_marks_beside_the_links(home: Path) -> None:
    with app_client(home) as client:
        page = client.get("/search?q=build+example&mode=keyword").text
    row = _one(page, '//article[@id="p-2401.00007"]//p[contains(@class, "abstract")]')
    html = lxml.html.tostring(row, encoding="unicode")
    assert "We <mark>build</mark> on" in html
    (example,) = [a for a in row.iter("a") if "example.org" in a.get("href")]
    assert [m.text for m in example.iter("mark")] == ["example"]  # marked inside the link, not cut by it
    assert found(_loose_text(row), MATH) == [] and len(list(row.iter("a"))) == 5
