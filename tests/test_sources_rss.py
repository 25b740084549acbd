"""The RSS/Atom reader on arXiv's real feed headers, the real legacy RDF feed, and feeds assembled
here from real records (no complete recording of today's rss.arxiv.org feeds exists)."""

from __future__ import annotations

import gzip
import io
import json
from datetime import date
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest

from papersift.records.paper import Paper, Parsed, RecordError
from papersift.sources.rss import feed_categories, iter_feed, parse_feed

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
RSS_DIR = DATA / "fixtures" / "rss"
LEGACY = RSS_DIR / "legacy_rss1.0_rdf_hep-ex_2018-05-23__physbiblio_trimmed.xml"
RSS_HEADER = RSS_DIR / "rss2_real_header_fragment_cs.AI_2025-09-18.txt"
ATOM_HEADER = RSS_DIR / "atom_real_header_fragment_cs_2025-11-23.txt"

Record = dict[str, Any]


def _xml_part(path: Path) -> str:
    """A fragment file without its '#' notes: the real XML from ``<?xml`` on."""
    text = path.read_text(encoding="utf-8")
    return text[text.index("<?xml") :]


def rss_header() -> str:
    """The real RSS 2.0 channel header, up to (not including) its first, truncated item."""
    xml = _xml_part(RSS_HEADER)
    return xml[: xml.index("<item>")]


def rss_first_real_item() -> str:
    """The real first item of the fragment (2509.13332, abstract cut off by the capture), closed."""
    xml = _xml_part(RSS_HEADER)
    return xml[xml.index("<item>") :].rstrip() + "</description>\n    </item>\n"


def rss_item(rec: Record, kind: str, version: int = 1, pub: str | None = None) -> str:
    cats = "".join(f"<category>{escape(c)}</category>" for c in rec["categories"])
    description = f"arXiv:{rec['id']}v{version} Announce Type: {kind} \nAbstract: {rec['abstract']}"
    pub_date = f"<pubDate>{pub}</pubDate>" if pub else ""
    return f"""    <item>
      <title>{escape(rec["title"])}</title>
      <link>https://arxiv.org/abs/{rec["id"]}</link>
      <description>{escape(description)}</description>
      <guid isPermaLink="false">oai:arXiv.org:{rec["id"]}v{version}</guid>
      {cats}{pub_date}
      <arxiv:announce_type>{kind}</arxiv:announce_type>
      <dc:rights>http://creativecommons.org/licenses/by/4.0/</dc:rights>
      <dc:creator>{escape(", ".join(rec["authors"]))}</dc:creator>
    </item>
"""


def rss_feed(*items: str) -> bytes:
    return (rss_header() + "".join(items) + "  </channel>\n</rss>\n").encode("utf-8")


def atom_entry(rec: Record, kind: str, published: str | None, version: int = 1) -> str:
    cats = "".join(f'<category term="{escape(c)}"/>' for c in rec["categories"])
    summary = f"arXiv:{rec['id']}v{version} Announce Type: {kind} \nAbstract: {rec['abstract']}"
    pub = f"<published>{published}</published>" if published else ""
    return f"""  <entry>
    <id>oai:arXiv.org:{rec["id"]}v{version}</id>
    <title>{escape(rec["title"])}</title>
    <link href="https://arxiv.org/abs/{rec["id"]}" rel="alternate" type="text/html"/>
    <summary>{escape(summary)}</summary>
    {cats}{pub}
    <arxiv:announce_type>{kind}</arxiv:announce_type>
    <dc:rights>http://creativecommons.org/licenses/by/4.0/</dc:rights>
    <dc:creator>{escape(", ".join(rec["authors"]))}</dc:creator>
  </entry>
"""


def atom_feed(*entries: str) -> bytes:
    return (_xml_part(ATOM_HEADER).rstrip() + "\n" + "".join(entries) + "</feed>\n").encode()


@pytest.fixture(scope="module")
def known_papers() -> dict[str, Record]:
    """Real papers from the 20k file, by id."""
    wanted = {"2410.21312", "2504.01196", "1207.4628", "0710.3353", "1001.0830", "0708.1527"}
    found: dict[str, Record] = {}
    with gzip.open(DATA / "arxiv-20k.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec["id"] in wanted:
                found[rec["id"]] = rec
    assert set(found) == wanted
    return found


def papers(items: list[Parsed]) -> list[Paper]:
    return [p for p in items if isinstance(p, Paper)]


def errors(items: list[Parsed]) -> list[RecordError]:
    return [e for e in items if isinstance(e, RecordError)]


# --- today's RSS 2.0 -------------------------------------------------------------------------


def test_rss2_real_first_item_reads_id_kind_abstract_and_channel_date() -> None:
    [paper] = parse_feed(rss_feed(rss_first_real_item()), "cs.AI.rss")
    assert isinstance(paper, Paper)
    assert paper.id == "2509.13332"
    assert paper.version == 1
    assert paper.title.startswith("Explicit Reasoning Makes Better Judges: A Systematic Study")
    assert paper.abstract.startswith("As Large Language Models (LLMs) are increasingly adopted")
    assert '"thinking" and "non-thinking" LLMs' in paper.abstract
    assert "Announce Type" not in paper.abstract
    assert paper.listings[0].date == date(2025, 9, 18)  # channel pubDate, in its own -0400 offset
    assert paper.listings[0].category == "cs.AI"
    assert paper.listings[0].kind == "new"
    assert paper.announced == date(2025, 9, 18)


def test_rss2_feed_gives_each_item_its_kind_and_place_in_document_order(
    known_papers: dict[str, Record],
) -> None:
    feed = rss_feed(
        rss_first_real_item(),
        rss_item(known_papers["2410.21312"], "new"),
        rss_item(known_papers["1001.0830"], "cross"),  # primary cs.IR, cross-listed to cs.AI
        rss_item(known_papers["0708.1527"], "replace", version=3),
        rss_item(known_papers["1207.4628"], "replace-cross", version=2),
    )
    items = parse_feed(feed, "cs.AI.rss")
    assert not errors(items)
    got = [(p.id, p.listings[0].kind, p.listings[0].position) for p in papers(items)]
    assert got == [
        ("2509.13332", "new", 1),
        ("2410.21312", "new", 2),
        ("1001.0830", "cross", 3),
        ("0708.1527", "replace", 4),
        ("1207.4628", "replace-cross", 5),
    ]
    by_id = {p.id: p for p in papers(items)}
    assert all(p.listings[0].category == "cs.AI" for p in by_id.values())
    assert by_id["1001.0830"].announced == date(2025, 9, 18)
    assert by_id["0708.1527"].announced is None  # a replacement is not a first announcement
    assert by_id["1207.4628"].announced is None
    assert by_id["0708.1527"].version == 3


def test_rss2_item_fields_map_to_the_paper(known_papers: dict[str, Record]) -> None:
    rec = known_papers["1001.0830"]
    item = rss_item(rec, "cross").replace(
        "</dc:creator>",
        "</dc:creator>\n<arxiv:DOI>10.1000/xyz.1</arxiv:DOI>"
        "<arxiv:journal_reference>J. Test 1 (2010) 2-3</arxiv:journal_reference>",
    )
    [paper] = parse_feed(rss_feed(item), "cs.AI.rss")
    assert isinstance(paper, Paper)
    assert paper.categories == rec["categories"]
    assert paper.primary_category == "cs.IR"
    assert paper.authors == rec["authors"]
    assert paper.abstract == " ".join(rec["abstract"].split())
    assert paper.license == "http://creativecommons.org/licenses/by/4.0/"
    assert paper.doi == "10.1000/xyz.1"
    assert paper.journal_ref == "J. Test 1 (2010) 2-3"


def test_item_pubdate_wins_over_the_channel_date(known_papers: dict[str, Record]) -> None:
    item = rss_item(known_papers["2410.21312"], "new", pub="Fri, 19 Sep 2025 00:00:00 -0400")
    [paper] = parse_feed(rss_feed(item), "cs.AI.rss")
    assert isinstance(paper, Paper)
    assert paper.listings[0].date == date(2025, 9, 19)


def test_latex_unicode_and_entities_stay_as_text(known_papers: dict[str, Record]) -> None:
    latex = known_papers["2410.21312"]  # "$\texttt{PatentAgent}$: ..."
    accents = known_papers["1207.4628"]  # Sébastien Verel, Jérémie Humeau
    amp = known_papers["0710.3353"]  # '&' in the title
    odd = dict(
        latex,
        id="2509.99999",
        title="Cross-lingual 大型语言模型 and עברית / العربية <b>not a tag</b> &amp; x",
        abstract="We show $a<b$ & $\\alpha \\to \\infty$ &#233;",
    )
    items = parse_feed(
        rss_feed(rss_item(latex, "new"), rss_item(accents, "new"), rss_item(amp, "new"),
                 rss_item(odd, "new")),
        "cs.AI.rss",
    )  # fmt: skip
    by_id = {p.id: p for p in papers(items)}
    assert by_id[latex["id"]].title == latex["title"]
    assert "\\texttt{PatentAgent}" in by_id[latex["id"]].title
    assert by_id[accents["id"]].authors == accents["authors"]
    assert by_id[amp["id"]].title == " ".join(amp["title"].split())
    weird = by_id["2509.99999"]
    assert "大型语言模型" in weird.title and "\u05e2\u05d1\u05e8\u05d9\u05ea" in weird.title
    assert "<b>not a tag</b> &amp; x" in weird.title  # escaped once in XML: literal text
    assert weird.abstract == "We show $a<b$ & $\\alpha \\to \\infty$ &#233;"


def test_a_bad_item_is_one_record_error_and_the_rest_survive(known_papers: dict[str, Record]) -> None:
    no_id = (
        "<item><title>Nothing to identify</title><description>Abstract: x</description>"
        "<arxiv:announce_type>new</arxiv:announce_type></item>"
    )
    no_title = rss_item(known_papers["0708.1527"], "new").replace(
        f"<title>{escape(known_papers['0708.1527']['title'])}</title>", "<title>  </title>"
    )
    bad_kind = rss_item(known_papers["0710.3353"], "withdrawn")
    items = parse_feed(
        rss_feed(rss_item(known_papers["2410.21312"], "new"), no_id, no_title, bad_kind,
                 rss_item(known_papers["1001.0830"], "cross")),
        "cs.AI.rss",
    )  # fmt: skip
    assert [p.id for p in papers(items)] == ["2410.21312", "1001.0830"]
    assert [p.listings[0].position for p in papers(items)] == [1, 5]
    errs = errors(items)
    assert [e.record for e in errs] == ["item 2", "0708.1527 (item 3)", "0710.3353 (item 4)"]
    assert "no arXiv id" in errs[0].message
    assert "no title" in errs[1].message
    assert "withdrawn" in errs[2].message


def test_truncated_feed_keeps_the_items_before_the_break(known_papers: dict[str, Record]) -> None:
    feed = rss_feed(rss_item(known_papers["2410.21312"], "new"), rss_item(known_papers["1001.0830"], "cross"))
    cut = feed[: feed.index(b"oai:arXiv.org:1001.0830")]
    items = parse_feed(cut, "cut.rss")
    assert [p.id for p in papers(items)] == ["2410.21312"]
    [err] = errors(items)
    assert "truncated" in err.message and "after 1 items" in err.message


def test_the_real_fragment_as_recorded_is_a_record_error_not_a_crash() -> None:
    items = parse_feed(RSS_HEADER.read_bytes(), RSS_HEADER.name)
    assert len(items) == 1 and isinstance(items[0], RecordError)


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"", "no element found"),
        (b'{"not": "xml"}', "malformed"),
        (b"<html><body>Service Unavailable</body></html>", "not an RSS/Atom feed"),
    ],
)
def test_not_a_feed_is_one_record_error(data: bytes, needle: str) -> None:
    [err] = list(iter_feed(io.BytesIO(data), "x"))
    assert isinstance(err, RecordError)
    assert needle in err.message


def test_weekend_rss_feed_without_items_yields_nothing() -> None:
    assert parse_feed(rss_feed(), "cs.AI.rss") == []


# --- today's Atom ----------------------------------------------------------------------------


def test_weekend_atom_header_alone_is_an_empty_feed() -> None:
    assert parse_feed(atom_feed(), "cs.atom") == []


def test_atom_entries_take_their_published_date_and_the_feed_category(
    known_papers: dict[str, Record],
) -> None:
    feed = atom_feed(
        atom_entry(known_papers["2504.01196"], "new", "2025-11-21T00:00:00-05:00"),
        atom_entry(known_papers["1001.0830"], "cross", "2025-11-21T00:00:00-05:00"),
        atom_entry(known_papers["0708.1527"], "replace", "2025-11-21T00:00:00-05:00", version=2),
    )
    items = parse_feed(feed, "cs.atom")
    assert not errors(items)
    got = [(p.id, p.listings[0].kind, p.listings[0].position) for p in papers(items)]
    assert got == [("2504.01196", "new", 1), ("1001.0830", "cross", 2), ("0708.1527", "replace", 3)]
    first = papers(items)[0]
    assert first.listings[0].date == date(2025, 11, 21)
    assert first.listings[0].category == "cs"  # the feed is the whole cs archive
    assert first.title == known_papers["2504.01196"]["title"]  # "$μ$KE: ..."
    assert first.authors == known_papers["2504.01196"]["authors"]
    assert first.categories == known_papers["2504.01196"]["categories"]
    assert first.license == "http://creativecommons.org/licenses/by/4.0/"
    assert first.announced == date(2025, 11, 21)
    assert papers(items)[2].announced is None


def test_atom_entry_without_published_falls_back_to_the_feed_updated_date(
    known_papers: dict[str, Record],
) -> None:
    [paper] = parse_feed(atom_feed(atom_entry(known_papers["2504.01196"], "new", None)), "cs.atom")
    assert isinstance(paper, Paper)
    assert paper.listings[0].date == date(2025, 11, 23)  # the real header's <updated>


def test_atom_author_elements_are_read_when_there_is_no_dc_creator(
    known_papers: dict[str, Record],
) -> None:
    rec = known_papers["1207.4628"]
    entry = atom_entry(rec, "new", "2025-11-21T00:00:00-05:00")
    creator = f"<dc:creator>{escape(', '.join(rec['authors']))}</dc:creator>"
    names = "".join(f"<author><name>{escape(a)}</name></author>" for a in rec["authors"])
    [paper] = parse_feed(atom_feed(entry.replace(creator, names)), "cs.atom")
    assert isinstance(paper, Paper)
    assert paper.authors == rec["authors"]


# --- legacy RSS 1.0 / RDF --------------------------------------------------------------------


def test_legacy_rdf_feed_maps_title_flags_to_kinds_and_dates_the_next_listing() -> None:
    items = list(iter_feed(LEGACY.open("rb"), LEGACY.name))
    assert not errors(items)
    got = [(p.id, p.version, p.listings[0].kind, p.listings[0].position) for p in papers(items)]
    assert got == [
        ("1805.08875", 1, "new", 1),
        ("1805.09166", 1, "cross", 2),
        ("1805.06430", 2, "replace-cross", 3),  # UPDATED, primary nucl-th, in the hep-ex feed
    ]
    # dc:date 2018-05-23T20:30-05:00 is the evening the listing went out: it is Thursday's listing
    assert {p.listings[0].date for p in papers(items)} == {date(2018, 5, 24)}
    assert {p.listings[0].category for p in papers(items)} == {"hep-ex"}
    first, cross, updated = papers(items)
    assert first.title == "Measurement of Transverse Single Spin Asymmetries"
    assert first.categories == ["hep-ex"]
    assert first.announced == date(2018, 5, 24)
    assert updated.announced is None
    assert updated.categories == ["nucl-th"]
    assert cross.categories == []  # a CROSS LISTED bracket names this feed, not the primary


def test_legacy_rdf_html_authors_and_abstracts_become_plain_text() -> None:
    first, _, updated = papers(parse_feed(LEGACY.read_bytes(), LEGACY.name))
    assert first.authors == ["Christopher Dilks"]  # link stripped, "(STAR Collaboration)" dropped
    assert updated.authors == [
        "Shu-Sheng Xu",
        "Zhu-Fang Cui",
        "Lei Chang",
        "Joannis Papavassiliou",
        "Craig D. Roberts",
        "Hong-Shi Zong",
    ]
    assert first.abstract.startswith("In 2015 the first collisions between polarized protons")
    assert "<p>" not in first.abstract
    assert "range of $2.6<\\eta<4$" in first.abstract  # double-escaped &amp;lt; → "<"
    assert "$\\sqrt{s_{NN}}=200$ GeV" in first.abstract


def test_feed_categories_come_from_title_or_link() -> None:
    assert feed_categories("cs.AI updates on arXiv.org", None) == ["cs.AI"]
    assert feed_categories(None, "https://rss.arxiv.org/rss/cs.LG+stat.ML") == ["cs.LG", "stat.ML"]
    assert feed_categories("something else", None) == []


def test_combined_feed_lists_each_item_under_the_feed_category_it_matches(
    known_papers: dict[str, Record],
) -> None:
    feed = rss_feed(rss_item(known_papers["1207.4628"], "new")).replace(
        b"<title>cs.AI updates on arXiv.org</title>",
        b"<title>math.OC+cs.NE updates on arXiv.org</title>",
    )
    [paper] = parse_feed(feed, "combined.rss")
    assert isinstance(paper, Paper)
    assert known_papers["1207.4628"]["categories"][0].startswith("cs.NE")
    assert paper.listings[0].category == "cs.NE"
