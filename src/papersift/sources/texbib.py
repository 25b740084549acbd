"""A TeX source's reference list: the ``.bbl`` (BibTeX's ``thebibliography``, or biblatex's entries), an
inline ``thebibliography``, or the ``.bib`` through the keys the TeX cites; and what one entry says (arXiv id,
DOI, title, year, URL), shared with the PDF reader.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from papersift.records.analyzer import letter_words
from papersift.records.paper import InvalidIdError, clean_text, normalize_id
from papersift.sources.fulltext import Reference
from papersift.sources.latex import to_text
from papersift.sources.references import find_arxiv_id, normalize_doi
from papersift.sources.texscan import command_args, group, skip_options, strip_comments

_YEAR = re.compile(r"(?<![\d/.])(19[0-9]{2}|20[0-3][0-9])(?![\d])")
_ARCHIVES = (
    "astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|nucl-ex|nucl-th|physics|quant-ph|math|cs"
    "|q-bio|q-fin|stat|eess|econ|alg-geom|chao-dyn|cmp-lg|dg-ga|funct-an|solv-int|patt-sol|adap-org|q-alg"
    "|chem-ph|comp-gas|mtrl-th|supr-con|acc-phys|ao-sci|atom-ph|bayes-an|plasm-ph"
)
_OLD_BARE = re.compile(rf"(?<![\w/-])((?:{_ARCHIVES})(?:\.[A-Z]{{2}})?/\d{{7}})(?:v\d+)?(?!\d)")
_NEW_CATEGORY = re.compile(
    r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?\s*\[(?:[a-z-]+(?:\.[A-Za-z]{2})?)\]"
)  # INSPIRE
_NEW_NEAR = re.compile(
    r"(?:arxiv|corr|preprint|e-?print|abs/)[^,;()\[\]]{0,40}?(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])",
    re.I,
)
_DOI_IN = re.compile(
    r"(?:doi\s*[:=]?\s*|doi\.org/|\\doi\s*\{\s*|\\dodoi\s*\{\s*)(10\.\d{4,9}/[^\s{}\\,;]+)", re.I
)
_URL = re.compile(r"https?://[^\s{}\\<>\"]+")


def reference_arxiv_id(*texts: str) -> str | None:
    """The arXiv id a reference names: ``arXiv:…``, an arXiv URL or DOI, CoRR's ``abs/…``, an eprint
    field, an old-style ``hep-th/9901001``; without version."""
    found = find_arxiv_id(*texts)
    if found:
        return found
    for text in texts:
        for pattern in (_NEW_NEAR, _NEW_CATEGORY, _OLD_BARE):
            for m in pattern.finditer(text):
                try:
                    return normalize_id(m[1])
                except InvalidIdError:
                    continue
    return None


def reference_fields(raw: str, text: str, title: str | None) -> dict[str, object]:
    """arXiv id, DOI, title, year and URL read from one entry (``raw`` LaTeX and its ``text``)."""
    doi_m = _DOI_IN.search(raw) or _DOI_IN.search(text)
    doi = normalize_doi(doi_m[1]) if doi_m else None
    if doi:
        doi = doi.rstrip(".)")
    urls = [u.rstrip(".,;)") for u in _URL.findall(raw)]
    url = next((u for u in urls if "doi.org/" not in u), urls[0] if urls else None)
    if doi is None:
        doi = next((normalize_doi(u) for u in urls if "doi.org/10." in u), None)
    bare = _URL.sub(" ", text)
    bare = re.sub(r"\d{4}\.\d{4,5}|10\.\d{4,9}/\S+|[a-z-]+/\d{7}", " ", bare)
    year_m = _YEAR.search(bare)
    return {
        "arxiv_id": reference_arxiv_id(raw, text),
        "doi": doi,
        "title": title or None,
        "year": int(year_m[1]) if year_m else None,
        "url": url,
    }


_NOT_TITLE = re.compile(r"in:|in\s+(?:proc|advances|the\s+proc)|arxiv\b|url\b|doi\b|preprint\b", re.I)


def _clean_title(title: str | None) -> str | None:
    title = (title or "").strip().strip(",.;: ").strip("“”\"'").strip(",.;: ")
    words = [w for w in letter_words(title) if len(w) >= 2]
    return title if len(words) >= 2 and not _NOT_TITLE.match(title) else None


def title_in_text(text: str) -> str | None:
    """The title in one entry's plain text, by its shape: quoted, after ACL's ``Authors. 2020.``, or after
    LNCS's ``Authors:``."""
    m = re.search(r"[“\"](.{8,300}?)[,.]?[”\"]", text)
    if m:
        return _clean_title(m[1])
    m = re.search(
        r"\.\s+(?:19|20)\d{2}[a-z]?\.\s+(.{8,300}?)[.?!]\s", text + " "
    )  # ACL: Authors. 2020. Title.
    if m:
        return _clean_title(m[1])
    m = re.search(r"^[^:]{3,200}?:\s+(.{8,300}?)\.\s", text + " ")  # LNCS: Authors: Title. Venue
    return _clean_title(m[1]) if m else None


def _bibitem_title(body: str, text: str) -> str | None:
    for _, _, args in command_args(body, "bibinfo"):
        if len(args) >= 2 and args[0].strip() == "title":
            return _clean_title(to_text(args[1]))
    m = re.search(r"``(.+?)''|“(.+?)”", body, re.S)
    if m:
        return _clean_title(to_text(m[1] or m[2]))
    blocks = re.split(r"\\newblock\b", body)
    if len(blocks) >= 2:
        return _clean_title(to_text(blocks[1]))
    return title_in_text(text)


_BIBITEM = re.compile(r"\\bibitem\s*")


def bibitems(bib: str) -> list[Reference]:
    """The ``\\bibitem`` entries of a ``thebibliography`` (a ``.bbl``, or inline) in order."""
    bib = strip_comments(bib)
    end = bib.find("\\end{thebibliography}")
    bib = bib[:end] if end >= 0 else bib
    starts = [m.start() for m in _BIBITEM.finditer(bib)]
    refs: list[Reference] = []
    for n, s in enumerate(starts):
        chunk = bib[s : starts[n + 1] if n + 1 < len(starts) else len(bib)]
        i = skip_options(chunk, len("\\bibitem"))
        label = chunk[len("\\bibitem") : i].strip().strip("[]")
        g = group(chunk, i)
        if g is None:
            continue
        key, body = g[0].strip(), chunk[g[1] :]
        text = to_text(body.replace("\\newblock", " "))
        fields = reference_fields(body, text, _bibitem_title(body, text))
        if fields["year"] is None and (y := _YEAR.search(label)):
            fields["year"] = int(y[1])
        refs.append(Reference(key=key or str(n + 1), text=text, **fields))  # type: ignore[arg-type]
    return refs


def biblatex_entries(bbl: str) -> list[Reference]:
    """The entries of a biblatex ``.bbl`` (``\\entry{key}{type}{}`` … ``\\endentry``)."""
    refs: list[Reference] = []
    for m in re.finditer(r"\\entry\{([^}]*)\}\{([^}]*)\}\{[^}]*\}(.*?)\\endentry", bbl, re.S):
        key, body = m[1], m[3]
        fields: dict[str, str] = {}
        for fm in re.finditer(r"\\field\{(\w+)\}\{", body):
            g = group(body, fm.end() - 1)
            if g:
                fields[fm[1].lower()] = g[0]
        for vm in re.finditer(r"\\verb\{(\w+)\}\s*\\verb (.*?)\s*\\endverb", body, re.S):
            fields[vm[1].lower()] = vm[2].strip()
        names = re.findall(r"family=\{([^}]*)\}", body)
        title = to_text(fields.get("title", "")) or None
        text = (
            ", ".join(names[:6])
            + (". " if names else "")
            + (title or "")
            + ". "
            + to_text(fields.get("journaltitle", fields.get("booktitle", "")))
        )
        year = fields.get("year") or fields.get("date", "")[:4]
        prefix = fields.get("eprinttype", fields.get("archiveprefix", "arxiv")).lower()
        arxiv = (
            reference_arxiv_id(fields.get("eprint", ""))
            if prefix == "arxiv" and fields.get("eprint")
            else None
        )
        try:
            arxiv = arxiv or (
                normalize_id(fields["eprint"]) if prefix == "arxiv" and "eprint" in fields else None
            )
        except InvalidIdError:
            arxiv = None
        refs.append(
            Reference(
                key=key,
                text=clean_text(text),
                arxiv_id=arxiv or reference_arxiv_id(fields.get("url", ""), fields.get("doi", "")),
                doi=normalize_doi(fields.get("doi")),
                title=title,
                year=int(year) if year.isdigit() else None,
                url=fields.get("url") or None,
            )
        )
    return refs


_CITE = re.compile(r"\\(?:[a-zA-Z]*cite[a-zA-Z]*|nocite)\*?\s*(?:\[[^\]]*\]\s*){0,2}\{([^}]*)\}")


def cited_keys(body: str) -> list[str]:
    """The citation keys in ``body`` in order of first citation (``*`` for ``\\nocite{*}``)."""
    seen: dict[str, None] = {}
    for m in _CITE.finditer(body):
        for key in m[1].split(","):
            if key.strip():
                seen.setdefault(key.strip(), None)
    return list(seen)


def bib_references(bib_texts: list[str], keys: list[str]) -> list[Reference]:
    """The ``.bib`` entries the TeX cites, in order of first citation (all of them for ``\\nocite{*}``)."""
    from papersift.sources.bibtex import read_bibtex
    from papersift.sources.references import Reference as BibEntry

    entries: dict[str, BibEntry] = {}
    for text in bib_texts:
        for e in read_bibtex(text):
            if isinstance(e, BibEntry):
                entries.setdefault(e.key, e)
    wanted = list(entries) if "*" in keys else [k for k in keys if k in entries]
    refs = []
    for k in wanted:
        e = entries[k]
        parts = [", ".join(e.authors), str(e.year or ""), e.title, e.venue or "", e.note]
        refs.append(
            Reference(
                key=k,
                text=clean_text(". ".join(p for p in parts if p)),
                arxiv_id=e.arxiv_id,
                doi=e.doi,
                title=e.title or None,
                year=e.year,
                url=e.url,
            )
        )
    return refs


def bbl_references(files: Mapping[str, str], main: str, whole: str) -> list[Reference]:
    names = [n.strip() for m in re.finditer(r"\\bibliography\s*\{([^}]*)\}", whole) for n in m[1].split(",")]
    stem = posixpath.splitext(main)[0]
    bbl_paths = [p for p in files if p.endswith(".bbl")]
    preferred = [_lookup_ext(files, n, ".bbl") for n in names] + [stem + ".bbl"]
    bbl = next((p for p in preferred if p and p in files), bbl_paths[0] if len(bbl_paths) == 1 else None)
    if bbl is None and bbl_paths:
        bbl = max(bbl_paths, key=lambda p: len(files[p]))
    if bbl is not None:
        text = files[bbl]
        refs = biblatex_entries(text) if "\\endentry" in text else bibitems(text)
        if refs:
            return refs
    bibs = [_lookup_ext(files, n, ".bib") for n in names]
    bibs += [
        _lookup_ext(files, m[1].strip(), "")
        for m in re.finditer(r"\\addbibresource(?:\[[^\]]*\])?\{([^}]*)\}", whole)
    ]
    texts = [files[p] for p in bibs if p]
    if not texts:
        texts = [t for p, t in files.items() if p.endswith(".bib")]
    return bib_references(texts, cited_keys(whole)) if texts else []


def _lookup_ext(files: Mapping[str, str], name: str, ext: str) -> str | None:
    path = posixpath.normpath(name).lstrip("./")
    for p in (path + ext, path, posixpath.basename(path) + ext):
        if p in files:
            return p
    return None
