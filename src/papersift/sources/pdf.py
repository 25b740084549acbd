"""A paper's PDF as text (pypdfium2: PDFium, Apache-2.0/BSD): the running text line by line without arXiv's
side stamp, running headers or page numbers, its sections where numbered or named headings can be found, the
figure and table captions, and the reference list split into entries (numbered ``[1]`` / ``1.`` lists, or
author-year lists by their hanging indent).

Pure parsing of one PDF held in memory (``sources/eprint.py`` decides what the bytes are).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from papersift.records.messages import say
from papersift.records.paper import clean_text
from papersift.sources.fulltext import ExtractError, FullText, Reference, Section
from papersift.sources.texbib import reference_fields, title_in_text

MIN_WORDS_PER_PAGE = 15  # fewer on average: no text layer (a scanned PDF), refused
HEADER_WITHIN = 1024  # where a PDF's ``%PDF-`` header may be, white space before it
_SOFT_HYPHEN = ("\ufffe", "\x02", "\u00ad")


@dataclass(frozen=True, slots=True)
class PdfDoc:
    """The ``FullText`` and the first page's text before the abstract (where a paper names its own code)."""

    fulltext: FullText
    title_notes: str


@dataclass(slots=True)
class _Line:
    text: str
    page: int
    x: float  # the left edge of its first character, in points
    right_column: bool
    hyphen: bool  # ends in a soft hyphen: joined to the next line without a space
    size: float = 0.0  # the font size of its first character


def is_pdf(blob: bytes) -> bool:
    """Whether ``blob`` is a PDF: it opens with the ``%PDF-`` header (white space before it aside). An
    archive holding a PDF (a tar whose first member is a figure's PDF) is not one: the header is not first.
    The one PDF check of e-prints (``sources/eprint``) and thumbnails (``services/thumbnails``)."""
    return blob[:HEADER_WITHIN].lstrip().startswith(b"%PDF-")


# ---------------------------------------------------------------- lines


def _lines(blob: bytes, max_pages: int) -> list[_Line]:
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    try:
        pdf = pdfium.PdfDocument(blob)
    except pdfium.PdfiumError as e:
        raise ExtractError(say("extract_pdf_unreadable", problem=str(e))) from None
    try:
        if len(pdf) > max_pages:
            raise ExtractError(say("extract_pdf_pages", pages=len(pdf), most=max_pages))
        lines: list[_Line] = []
        for number in range(len(pdf)):
            page = pdf[number]
            width = page.get_width()
            textpage = page.get_textpage()
            text = textpage.get_text_range()
            for m in re.finditer(r"[^\r\n]+", text):
                raw = m[0]
                stripped = raw.strip()
                if not stripped:
                    continue
                first = m.start() + (len(raw) - len(raw.lstrip()))
                try:
                    x = textpage.get_charbox(first)[0]
                    size = float(pdfium_c.FPDFText_GetFontSize(textpage.raw, first))
                except (pdfium.PdfiumError, IndexError):
                    x, size = 0.0, 0.0
                hyphen = stripped.endswith(_SOFT_HYPHEN)
                stripped = stripped.rstrip("".join(_SOFT_HYPHEN)).replace("\ufffe", "").replace("\x02", "")
                lines.append(_Line(stripped, number, x, x > width / 2 - 10, hyphen, size))
            textpage.close()
            page.close()
    finally:
        pdf.close()
    return lines


_STAMP = re.compile(r"^arXiv:\s?\S+v\d+\s+\[[\w.-]+\]\s+\d{1,2}\s+[A-Z][a-z]{2}\s+\d{4}$")


def _clean(lines: list[_Line]) -> list[_Line]:
    """Without arXiv's side stamp, page numbers and lines repeated on most pages (running heads)."""
    pages = max((ln.page for ln in lines), default=0) + 1
    keys = [re.sub(r"\d+", "#", ln.text) for ln in lines]  # page numbers in running heads vary
    on_pages: dict[str, set[int]] = {}
    for key, ln in zip(keys, lines, strict=True):
        on_pages.setdefault(key, set()).add(ln.page)
    running = {k for k, v in on_pages.items() if pages >= 3 and len(v) >= max(3, pages // 2) and len(k) > 3}
    return [
        ln
        for key, ln in zip(keys, lines, strict=True)
        if not _STAMP.match(ln.text)
        and not re.fullmatch(r"\d{1,4}|Page \d+( of \d+)?", ln.text)
        and key not in running
    ]


def _join(lines: list[_Line]) -> str:
    out: list[str] = []
    for ln in lines:  # a URL broken after its / stays whole
        out.append(ln.text + ("" if ln.hyphen or re.search(r"https?://\S*/$", ln.text) else " "))
    return clean_text("".join(out))


# ---------------------------------------------------------------- headings

_NAMED = re.compile(
    r"^(abstract|introduction|related work|background|conclusions?|discussion|limitations|acknowledge?ments?"
    r"|references|bibliography|appendix|appendices|ethics statement|broader impacts?|methods)\s*:?$",
    re.I,
)
_NUMBERED = re.compile(r"^(\d{1,2})((?:\.\d{1,2}){0,2})\.?\s+([A-Z][^\d]{1,90})$")
_ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV")
_ROMAN_HEADING = re.compile(r"^([IVX]{1,4})\.\s+([A-Z][A-Z0-9 ,:;'’()&/-]{2,90})$")
_LETTER = re.compile(r"^([A-H])((?:\.\d{1,2}){0,2})\.?\s+([A-Z][^\d]{1,90})$")
_REFERENCES = re.compile(r"^(references|bibliography|literature cited|works cited)\s*:?$", re.I)


def _looks_like_heading(text: str) -> bool:
    words = text.split()
    return (
        0 < len(words) <= 12
        and not text.endswith((".", ",", ";"))
        and ". " not in text
        and text.count(",") <= 1
    )


def _headings(lines: list[_Line]) -> dict[int, tuple[str, int]]:
    """Line index → (heading, level) for the lines that open a section (numbering kept monotone)."""
    found: dict[int, tuple[str, int]] = {}
    top, roman, letter, after_refs, ref_size = 0, 0, "", False, 0.0
    for i, ln in enumerate(lines):
        t = ln.text
        if _NAMED.match(t):
            found[i] = (t.rstrip(":"), 1)
            if _REFERENCES.match(t):  # below it only lines set larger than the entries are headings
                after_refs = True
                sizes = sorted(ln.size for ln in lines[i + 1 : i + 41])
                ref_size = sizes[len(sizes) // 2] if sizes else 0.0
            continue
        if after_refs and ln.size <= ref_size + 0.5:
            continue
        m = _NUMBERED.match(t)
        if m and _looks_like_heading(m[3]):
            n, sub = int(m[1]), m[2]
            if top == 0 or (not sub and n == top + 1) or (sub and n == top):  # a cut-out page starts anywhere
                top = n
                found[i] = (m[3].strip(), 1 + sub.count("."))
                continue
        m = _ROMAN_HEADING.match(t)
        if m and m[1] in _ROMAN and _ROMAN.index(m[1]) == roman and _looks_like_heading(m[2]):
            roman += 1
            letter = ""
            found[i] = (m[2].strip(), 1)
            continue
        m = _LETTER.match(t)
        if m and _looks_like_heading(m[3]) and (after_refs or roman):
            expected = {letter, chr(ord(letter) + 1)} if letter else {"A"}
            if m[1] in expected and not (roman and not after_refs and m[2]):
                letter = m[1]
                found[i] = (m[3].strip(), (2 if roman and not after_refs else 1) + m[2].count("."))
    return found


# ---------------------------------------------------------------- references

_BRACKET = re.compile(r"^\[(\d{1,3})\]\s*")
_DOTTED = re.compile(r"^(\d{1,3})\.\s+(?=\S)")


def _numbered(lines: list[_Line], pattern: re.Pattern[str]) -> list[list[_Line]] | None:
    entries: list[list[_Line]] = []
    expected = 1
    for ln in lines:
        m = pattern.match(ln.text)
        if m and int(m[1]) == expected:
            expected += 1
            entries.append([_Line(ln.text[m.end() :], ln.page, ln.x, ln.right_column, ln.hyphen)])
        elif entries:
            entries[-1].append(ln)
    return entries if len(entries) >= 2 else None


def _hanging(lines: list[_Line]) -> list[list[_Line]]:
    """Author-year entries: each starts at its column's left edge, its other lines are indented."""
    left: dict[tuple[int, bool], float] = {}
    for ln in lines:
        key = (ln.page, ln.right_column)
        left[key] = min(left.get(key, ln.x), ln.x)
    indented = {k for k in left if any(ln.x > left[k] + 3 for ln in lines if (ln.page, ln.right_column) == k)}
    entries: list[list[_Line]] = []
    for ln in lines:
        key = (ln.page, ln.right_column)
        if key in indented:
            starts = ln.x <= left[key] + 1.5
        else:
            prev = entries[-1][-1].text if entries else ""
            starts = not entries or (prev.endswith(".") and ln.text[:1].isupper())
        if starts or not entries:
            entries.append([ln])
        else:
            entries[-1].append(ln)
    return entries


def _references(lines: list[_Line]) -> list[Reference]:
    entries = _numbered(lines, _BRACKET) or _numbered(lines, _DOTTED) or _hanging(lines)
    refs = []
    for n, entry in enumerate(entries, 1):
        text = _join(entry)
        if not text:
            continue
        fields = reference_fields(text, text, title_in_text(text))
        refs.append(Reference(key=str(n), text=text, **fields))  # type: ignore[arg-type]
    return refs


# ---------------------------------------------------------------- the document

_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table|TABLE|FIG\.)\s*[A-Z]?\d+[.:]\s")


def read_pdf(blob: bytes, *, max_pages: int = 1000) -> PdfDoc:
    """The full text of one PDF. ``ExtractError`` when it cannot be read or has no text layer."""
    raw = _lines(blob, max_pages)
    pages = max((ln.page for ln in raw), default=0) + 1
    if sum(len(ln.text.split()) for ln in raw) < MIN_WORDS_PER_PAGE * pages:
        raise ExtractError(say("extract_pdf_no_text"))
    lines = _clean(raw)
    heads = _headings(lines)

    ref_at = max((i for i, (h, _) in heads.items() if _REFERENCES.match(h)), default=None)
    ref_end = len(lines)
    if ref_at is not None:
        ref_end = min((i for i in heads if i > ref_at), default=len(lines))
        ref_lines = lines[ref_at + 1 : ref_end]
    else:  # no heading (REVTeX prints none): the last run that starts with [1]
        start = max((i for i, ln in enumerate(lines) if ln.text.startswith("[1]")), default=None)
        ref_lines = lines[start:] if start is not None else []
        if start is not None:
            ref_at, ref_end = start - 1, len(lines)
    references = _references(ref_lines) if ref_lines else []

    captions: list[str] = []
    for i, ln in enumerate(lines):
        if _CAPTION.match(ln.text):
            block = [ln]
            for nxt in lines[i + 1 : i + 6]:
                if block[-1].text.endswith(".") or nxt.page != ln.page:
                    break
                block.append(nxt)
            captions.append(_join(block))

    sections: list[Section] = []
    body = [(i, ln) for i, ln in enumerate(lines) if ref_at is None or not (ref_at < i < ref_end)]
    heading, level, chunk = "", 0, list[_Line]()
    first_heading = min(heads, default=len(lines))
    for i, ln in body:
        if i in heads:
            if chunk or heading:
                sections.append(Section(heading, level, _join(chunk)))
            heading, level = heads[i]
            chunk = []
        else:
            chunk.append(ln)
    if chunk or heading:
        sections.append(Section(heading, level, _join(chunk)))
    sections = [s for s in sections if not _REFERENCES.match(s.heading) or s.text]
    sections = [Section("Abstract", 0, s.text) if s.heading.lower() == "abstract" else s for s in sections]

    first_page = [ln for i, ln in enumerate(lines) if ln.page == 0 and i < first_heading]
    title = lines[0].text if lines else ""
    fulltext = FullText("pdf", tuple(sections), tuple(captions), tuple(references), title=title)
    return PdfDoc(fulltext=fulltext, title_notes="\n".join(ln.text for ln in first_page))
