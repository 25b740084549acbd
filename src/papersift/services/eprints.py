"""Papers' full text from arXiv: fetching each paper's e-print (a gzipped tar of TeX sources, a gzipped
``.tex``, or a PDF; the PDF from ``pdf_url`` where there is no source), reading it (``sources/eprint.py``),
resolving its references to the store's papers, and storing it, once per paper version.

Fetching goes through harvest's ``ArxivClient`` (one interval per host, retries, ``Retry-After``, "offline"
at once when arXiv cannot be reached). Each paper is stored in one transaction as soon as it is read, and a
version already stored is skipped (a failed one too unless ``retry_failed``), so a run killed at any instant
starts again where it stopped and stores nothing twice. Progress goes out through a callback; nothing here
prints.

Resolution, precision first: the reference's arXiv id (its eprint field, an ``arXiv:`` mention, an arXiv
URL, a ``10.48550/arXiv.*`` DOI), else its DOI against the papers' DOIs, else its title against the store's
titles through the keyword index: the same title up to case and punctuation, or a title alike by at least
``TITLE_MATCH`` (``difflib`` ratio of the folded titles, titles of 20 characters or more). Measured on the
fixtures (``bench/fulltext_titles.py``: their 160 references with an arXiv id and a title against the 20k
file and the 11 cited papers): every match right from 0.75 up, the first wrong one at 0.714 ("Qwen2.5
Technical Report" to "Kimi-VL Technical Report"), one right match lost from 0.97; 0.93 keeps a margin.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

from papersift.records.analyzer import fold_title
from papersift.records.messages import Message, reason, say
from papersift.records.paper import InvalidIdError, Paper, normalize_id
from papersift.services import thumbnails
from papersift.services.harvest import ArxivClient, HarvestError
from papersift.sources.fulltext import CodeLink, ExtractError, FullText, Reference
from papersift.sources.pdf import is_pdf
from papersift.store import Store
from papersift.store.fulltext_rows import FullTextInfo

TITLE_MATCH = 0.93  # folded-title similarity from which a reference names a store paper
MIN_TITLE_CHARS = 20  # shorter folded titles ("Introduction", "Adam") match only exactly
TITLE_CANDIDATES = 5  # keyword hits compared per title
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf|e-print)/([\w.\-/]+?)(?:v\d+)?(?:\.pdf)?$", re.IGNORECASE)

Extract = Callable[[bytes, str, str | None], FullText]  # (blob, arXiv id, content type) -> the full text
Links = Callable[[str], list[CodeLink]]  # text -> the code links it names


@dataclass
class Fetched:
    """What a run did: papers read and stored (their info), already stored, failed (id and why); the
    seconds spent reading and storing (downloads excluded) and the bytes downloaded."""

    stored: list[FullTextInfo] = field(default_factory=list)
    kept: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    downloaded: int = 0

    def line(self) -> Message:
        """The run in one line, a message (the CLI says it in the reader's language)."""
        size = sum(i.size for i in self.stored)
        return say(
            "fulltext_fetched",
            stored=len(self.stored),
            size=f"{size:,}",
            kept=self.kept,
            failed=len(self.failed),
        )


def _extractor() -> tuple[Extract, Links]:
    from papersift.sources.eprint import code_links
    from papersift.sources.eprint import extract as read

    def extract(blob: bytes, arxiv_id: str, content_type: str | None) -> FullText:
        return read(blob, arxiv_id=arxiv_id, content_type=content_type)

    return extract, code_links


def versioned(paper: Paper) -> str:
    """The paper's id with its version (``2401.01234v2``), or the bare id when the version is unknown."""
    return f"{paper.id}v{paper.version}" if paper.version else paper.id


def download(client: ArxivClient, paper: Paper) -> tuple[bytes, str | None]:
    """The paper's e-print (or, where arXiv has no source, its PDF) and its content type; a HarvestError
    when neither is there."""
    settings = client.settings
    name = versioned(paper)
    response = client.get(f"{settings.eprint_url.rstrip('/')}/{name}", ok=(200, 403, 404))
    if response.status_code == 200 and response.content:
        return response.content, response.headers.get("content-type")
    response = client.get(f"{settings.pdf_url.rstrip('/')}/{name}", ok=(200, 403, 404))
    if response.status_code != 200 or not response.content:
        raise HarvestError(say("eprint_missing", name=name, status=response.status_code))
    return response.content, response.headers.get("content-type") or "application/pdf"


def arxiv_id_of(ref: Reference) -> str | None:
    """The arXiv id a reference names (its own field, an arXiv DOI, an arXiv URL), normalised; else None."""
    found = [ref.arxiv_id]
    if ref.doi and (m := _ARXIV_DOI.match(ref.doi)):
        found.append(m.group(1))
    if ref.url and (m := _ARXIV_URL.search(ref.url)):
        found.append(m.group(1))
    for raw in found:
        if raw:
            try:
                return normalize_id(raw)
            except InvalidIdError:
                continue
    return None


def title_match(store: Store, title: str, threshold: float = TITLE_MATCH) -> tuple[str, float] | None:
    """The store paper a reference's title names, and how alike the titles are (1.0: the same up to case
    and punctuation); None when no stored title is alike enough."""
    exact = store.paper_ids_by_title(title)
    if exact:
        return exact[0], 1.0
    wanted = fold_title(title)
    if len(wanted) < MIN_TITLE_CHARS:
        return None
    hits = store.match(title, k=TITLE_CANDIDATES, any_terms=True)
    best: tuple[str, float] | None = None
    for paper in store.by_rowids([r for r, _ in hits]).values():
        ratio = SequenceMatcher(None, wanted, fold_title(paper.title), autojunk=False).ratio()
        if ratio >= threshold and (best is None or ratio > best[1]):
            best = (paper.id, ratio)
    return best


def resolve(store: Store, references: Sequence[Reference], own_id: str) -> list[Reference]:
    """``references`` with ``resolved`` set to the store paper each names (by arXiv id, DOI or title)."""
    ids = {ref_id for r in references if (ref_id := arxiv_id_of(r))}
    stored = {p.id for p in store.get_many(sorted(ids))} if ids else set()
    out = []
    for ref in references:
        resolved: str | None = None
        ref_id = arxiv_id_of(ref)
        if ref_id is not None and ref_id in stored:
            resolved = ref_id
        elif ref.doi and ref_id is None:
            resolved = store.paper_id_by_doi(ref.doi)
        if resolved is None and ref_id is None and ref.title:
            hit = title_match(store, ref.title)
            resolved = hit[0] if hit else None
        out.append(
            replace(ref, arxiv_id=ref.arxiv_id or ref_id, resolved=None if resolved == own_id else resolved)
        )
    return out


def _code(paper: Paper, text: FullText, links: Links) -> tuple[CodeLink, ...]:
    """The paper's code links: its own first (as the text says), then the others, each URL once; from the
    abstract, the comments and the full text."""
    found = [*links(f"{paper.abstract}\n{paper.comments or ''}"), *text.code]
    seen: dict[str, CodeLink] = {}
    for link in found:
        key = link.url.rstrip("/").casefold()
        if key not in seen or (link.own and not seen[key].own):
            seen[key] = link
    return tuple(sorted(seen.values(), key=lambda c: not c.own))


def read_paper(
    store: Store,
    paper: Paper,
    blob: bytes,
    content_type: str | None,
    *,
    extract: Extract | None = None,
    links: Links | None = None,
) -> FullTextInfo:
    """Read one downloaded e-print or PDF, resolve its references and store it (an ``ExtractError`` when it
    cannot be read: nothing stored then)."""
    if extract is None or links is None:
        default_extract, default_links = _extractor()
        extract, links = extract or default_extract, links or default_links
    text = extract(blob, paper.id, content_type)
    text = replace(
        text, references=tuple(resolve(store, text.references, paper.id)), code=_code(paper, text, links)
    )
    return store.put_fulltext(paper.id, paper.version or 0, text)


def to_fetch(store: Store, papers: Sequence[Paper], *, retry_failed: bool = False) -> tuple[list[Paper], int]:
    """The papers whose current version is not stored yet (failed ones too with ``retry_failed``), each
    once, and how many were stored already."""
    unique = list({p.id: p for p in papers}.values())
    states = store.fulltext_states([p.id for p in unique])
    wanted = []
    for p in unique:
        state = states.get((p.id, p.version or 0))
        if state is None or (state == "failed" and retry_failed):
            wanted.append(p)
    return wanted, len(unique) - len(wanted)


def fetch_fulltexts(
    client: ArxivClient,
    store: Store,
    papers: Sequence[Paper],
    *,
    retry_failed: bool = False,
    on_paper: Callable[[Paper, str], None] | None = None,
    extract: Extract | None = None,
    links: Links | None = None,
) -> Fetched:
    """Fetch, read and store the full text of each paper not stored yet for its version, one at a time.

    A paper that arXiv has no e-print or PDF for, or that cannot be read, is recorded as failed (not asked
    again for that version unless ``retry_failed``); "offline" (arXiv not reached at all) ends the run with
    a HarvestError, as does a run of retries spent. ``on_paper(paper, outcome)`` hears each paper done.
    """
    wanted, kept = to_fetch(store, papers, retry_failed=retry_failed)
    done = Fetched(kept=kept)
    for paper in wanted:
        try:
            blob, content_type = download(client, paper)
        except HarvestError as e:
            if str(e).startswith("offline") or "gave up after" in str(e):
                raise
            store.put_fulltext_failure(paper.id, paper.version or 0, reason(e))
            done.failed.append((paper.id, reason(e)))
            if on_paper:
                on_paper(paper, "failed")
            continue
        done.downloaded += len(blob)
        started = time.perf_counter()
        if is_pdf(blob):  # a PDF in hand: its first page is the paper's thumbnail
            thumbnails.keep(client.settings.home, paper.id, blob)
        try:
            info = read_paper(store, paper, blob, content_type, extract=extract, links=links)
        except ExtractError as e:
            why = say("fulltext_unreadable", problem=reason(e))
            store.put_fulltext_failure(paper.id, paper.version or 0, why)
            done.failed.append((paper.id, reason(e)))
            outcome = "failed"
        else:
            done.stored.append(info)
            outcome = "stored"
        done.seconds += time.perf_counter() - started
        if on_paper:
            on_paper(paper, outcome)
    return done


def resolve_stored(store: Store, batch: int = 5_000) -> int:
    """Look again for the store papers that stored references name (papers added since they were read);
    returns how many references were resolved now."""
    resolved = 0
    after = ("", 0)
    while rows := store.unresolved_references(batch, after):
        edges: list[tuple[str, int, str | None]] = []
        for paper_id, position, ref in rows:
            again = resolve(store, [ref], paper_id)[0]
            if again.resolved is not None:
                edges.append((paper_id, position, again.resolved))
        resolved += store.set_resolved(edges)
        after = (rows[-1][0], rows[-1][1])
    return resolved
