"""arXiv's e-prints read safely: what ``/e-print/<id>`` returns (a gzipped tar of TeX sources, a single
gzipped ``.tex``, a plain tar) or a PDF, recognised by their bytes, turned into a ``FullText``
(``sources/tex`` reads the TeX, ``sources/pdf`` the PDF); and the code links of a paper (GitHub, GitLab,
Hugging Face, project pages), its own first, from the full text or from the abstract and comments alone.

Archives are read in memory with limits (total uncompressed bytes, members, one member's bytes), never
extracted to disk; a link, a device, an absolute path or ``..`` refuses the whole archive. Every refusal is an
``ExtractError`` saying why.
"""

from __future__ import annotations

import bisect
import gzip
import io
import itertools
import posixpath
import re
import tarfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace

from papersift.records.messages import reason, say
from papersift.sources.fulltext import CodeKind, CodeLink, ExtractError, FullText
from papersift.sources.pdf import is_pdf


@dataclass(frozen=True, slots=True)
class Limits:
    """How much an e-print may hold: uncompressed bytes in all, members, one member's bytes, TeX text bytes,
    PDF pages."""

    total_bytes: int = 512 * 1024 * 1024
    members: int = 5_000
    member_bytes: int = 128 * 1024 * 1024
    text_bytes: int = 64 * 1024 * 1024  # the .tex, .bbl, .bib files together
    pdf_pages: int = 1_000


LIMITS = Limits()
TEX_SUFFIXES = (".tex", ".ltx", ".latex")
TEXT_SUFFIXES = (*TEX_SUFFIXES, ".bbl", ".bib", ".abs")
_SKIPPED = re.compile(r"(?:^|/)(?:\._[^/]*|\.DS_Store|__MACOSX(?:/.*)?)$")


def extract(
    blob: bytes, *, arxiv_id: str, content_type: str | None = None, limits: Limits = LIMITS
) -> FullText:
    """The full text of one e-print or PDF (``arxiv_id`` names it in errors). Raises ``ExtractError`` for
    anything that cannot be read safely or at all."""
    try:
        kind = _kind(blob, content_type)
        if kind == "pdf":
            return _pdf(blob, limits)
        if kind == "gzip":
            return _gzip(blob, limits)
        if kind == "tar":
            return _from_tar(io.BytesIO(blob), limits)
        return _tex({"main.tex": _decode(blob)})
    except ExtractError as e:
        raise ExtractError(say("extract_of", id=arxiv_id, problem=reason(e))) from None
    except RecursionError:
        raise ExtractError(say("extract_of", id=arxiv_id, problem=say("extract_too_deep"))) from None


def _kind(blob: bytes, content_type: str | None) -> str:
    if is_pdf(blob):
        return "pdf"
    if blob[:2] == b"\x1f\x8b":
        return "gzip"
    if blob[257:262] == b"ustar" or (content_type or "").endswith(("x-tar", "/tar")):
        return "tar"
    if (content_type or "").startswith("application/pdf"):
        raise ExtractError(say("extract_not_pdf"))
    head = blob[:65536]
    if b"\\documentclass" in head or b"\\documentstyle" in head or b"\\begin{document}" in blob:
        return "tex"
    raise ExtractError(say("extract_unknown_kind"))


class _Bounded(io.RawIOBase):
    """A reader that refuses to give more than ``limit`` bytes in all (a decompression bomb stops here)."""

    def __init__(self, raw: io.BufferedIOBase | gzip.GzipFile, limit: int) -> None:
        self.raw, self.left = raw, limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = _guarded(lambda: self.raw.read(min(len(buffer), self.left + 1)))
        if len(data) > self.left:
            raise ExtractError(say("extract_bomb"))
        self.left -= len(data)
        buffer[: len(data)] = data
        return len(data)


def _guarded(read: Callable[[], bytes]) -> bytes:
    """``read()``, a broken gzip stream said so as an ``ExtractError``."""
    try:
        return read()
    except (gzip.BadGzipFile, zlib.error, EOFError) as e:
        raise ExtractError(say("extract_corrupt_gzip", problem=str(e))) from None


def _gzip(blob: bytes, limits: Limits) -> FullText:
    stream = io.BufferedReader(_Bounded(gzip.GzipFile(fileobj=io.BytesIO(blob)), limits.total_bytes), 1 << 16)
    head = _guarded(lambda: stream.peek(512)[:512])
    if head[257:262] == b"ustar" or (len(head) >= 512 and _tar_checksum_ok(head)):
        return _from_tar(stream, limits)
    data = _guarded(lambda: stream.read(limits.member_bytes + 1))
    if len(data) > limits.member_bytes:
        raise ExtractError(say("extract_file_too_big"))
    if is_pdf(data):
        return _pdf(data, limits)
    if data.startswith(b"%!PS"):
        raise ExtractError(say("extract_postscript"))
    return _tex({"main.tex": _decode(data)})


def _tar_checksum_ok(header: bytes) -> bool:
    try:
        stored = int(header[148:156].split(b"\0")[0].strip() or b"-1", 8)
    except ValueError:
        return False
    return stored == sum(header[:148]) + 8 * 32 + sum(header[156:512])


def _member_name(name: str) -> str:
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        raise ExtractError(say("extract_absolute_path", name=repr(name)))
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        raise ExtractError(say("extract_outside", name=repr(name)))
    return posixpath.normpath("/".join(p for p in parts if p not in ("", "."))) if name.strip("./") else ""


def _from_tar(stream: io.IOBase, limits: Limits) -> FullText:
    """The TeX of a tar, or the PDF it holds where it has no TeX (a PDF-only submission)."""
    files, pdf = _read_tar(stream, limits)
    if any(p.lower().endswith(TEX_SUFFIXES) for p in files):
        try:
            return _tex(files)
        except ExtractError:
            if pdf is None:
                raise
    if pdf is not None:
        return _pdf(pdf, limits)
    raise ExtractError(say("extract_no_tex"))


def _read_tar(stream: io.IOBase, limits: Limits) -> tuple[dict[str, str], bytes | None]:
    """The text files of a tar by path (``._*``, ``.DS_Store`` left out) and its largest PDF, read member by
    member within the limits."""
    files: dict[str, str] = {}
    pdf: bytes | None = None
    count = text_bytes = 0
    try:
        with tarfile.open(fileobj=stream, mode="r|") as tar:
            for member in tar:
                count += 1
                if count > limits.members:
                    raise ExtractError(say("extract_members", n=limits.members))
                name, shown = _member_name(member.name), repr(member.name)
                if member.issym() or member.islnk():
                    raise ExtractError(say("extract_link", name=shown, target=repr(member.linkname)))
                if not (member.isfile() or member.isdir()):
                    raise ExtractError(say("extract_special", name=shown))
                if member.size > limits.member_bytes:
                    raise ExtractError(say("extract_member_too_big", name=shown, size=member.size))
                if member.isdir() or not name or _SKIPPED.search(name):
                    continue
                lower = name.lower()
                if lower.endswith(TEXT_SUFFIXES):
                    text_bytes += member.size
                    if text_bytes > limits.text_bytes:
                        raise ExtractError(say("extract_tex_too_big", n=limits.text_bytes))
                    f = tar.extractfile(member)
                    if f is not None:
                        files[name] = _decode(f.read())
                elif lower.endswith(".pdf") and member.size > len(pdf or b""):
                    f = tar.extractfile(member)
                    pdf = f.read() if f is not None else pdf
    except tarfile.TarError as e:
        raise ExtractError(say("extract_corrupt_tar", problem=str(e))) from None
    except (gzip.BadGzipFile, zlib.error, EOFError) as e:
        raise ExtractError(say("extract_corrupt_gzip", problem=str(e))) from None
    return files, pdf


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _tex(files: dict[str, str]) -> FullText:
    from papersift.sources.tex import read_tex

    doc = read_tex(files)
    ft = doc.fulltext
    plain = "\n\n".join(s.text for s in ft.sections)
    links = _merge(
        code_links(doc.title_notes, own_hints=True, all_own=True),
        code_links(plain),
        code_links(re.sub(r"\\([_#%&~])", r"\1", doc.body)),  # \_ in a URL is _
    )
    return replace(ft, code=tuple(links))


def _pdf(blob: bytes, limits: Limits) -> FullText:
    from papersift.sources.pdf import read_pdf

    doc = read_pdf(blob, max_pages=limits.pdf_pages)
    ft = doc.fulltext
    plain = "\n\n".join(s.text for s in ft.sections)
    links = _merge(code_links(doc.title_notes, own_hints=True), code_links(plain))
    return replace(ft, code=tuple(links))


# ---------------------------------------------------------------- code links

_HOSTED = re.compile(
    r"(?:https?://)?(?:www\.)?(github\.com|gitlab\.com|huggingface\.co|hf\.co)/"
    r"([A-Za-z0-9][\w.-]*)(?:/([\w.-]+))?(?:/([\w.-]+))?",
    re.I,
)
_ANY_URL = re.compile(r"https?://[^\s{}\\<>\"'()\[\]|]+", re.I)
_NOT_REPOS = frozenset(
    "features about pricing docs blog topics explore settings login join marketplace sponsors orgs search "
    "site collections trending enterprise security contact".split()
)
_OWN = re.compile(
    r"\bour\s+(?:[\w-]+\s+){0,3}?(?:code|codes|implementation|models?|data|datasets?|weights|checkpoints?|"
    r"project|repository|repo|demo|benchmark|tool|toolkit|library|package|framework|system|source)\b"
    r"|\bwe\s+(?:will\s+|also\s+|publicly\s+|further\s+)*(?:release|open[- ]?source|publish|share|provide"
    r"|make\s+(?:[\w-]+\s+){0,5}?(?:publicly\s+)?(?:available|public))"
    r"|\b(?:code|codes|implementation|source code|models?|datasets?|data|weights|checkpoints?|repository|"
    r"project page|demo|website|homepage)\b[^.;]{0,50}?\b(?:is|are|will be|has been|have been|can be)\b"
    r"[^.;]{0,40}?\b(?:available|released|open[- ]?sourced|public|found|accessed|downloaded)\b"
    r"|\b(?:project page|homepage|project website|webpage|code|demo)\s*:\s*$"
    r"|\b(?:code|codes|implementation|project page|website|demo)\s+(?:is\s+)?(?:at|here|on)\s*:?\s*$",
    re.I,
)
MAX_LINKS = 1_000  # links looked at in one text
_PROJECT_CONTEXT = re.compile(r"\b(?:project page|project website|homepage|website|demo)\b[^.;]{0,60}$", re.I)


def _normal(url: str) -> tuple[str, CodeKind] | None:
    url = url.rstrip(".,;:!?)]}'\"")
    m = _HOSTED.match(url)
    if m:
        host = m[1].lower()
        owner, name, extra = m[2], m[3], m[4]
        if host in ("huggingface.co", "hf.co"):
            if owner.lower() in ("datasets", "spaces") and name:
                path = f"{owner.lower()}/{name}" + (f"/{extra}" if extra else "")
            elif owner.lower() in ("docs", "blog", "papers", "learn", "models", "join", "pricing", "tasks"):
                return None
            else:
                path = owner + (f"/{name}" if name else "")
            return "https://huggingface.co/" + path.rstrip("."), "huggingface"
        if owner.lower() in _NOT_REPOS:
            return None
        repo = (name or "").removesuffix(".git").rstrip(".")
        kind: CodeKind = "github" if host == "github.com" else "gitlab"
        return f"https://{host}/{owner}" + (f"/{repo}" if repo else ""), kind
    if re.match(r"https?://", url, re.I):
        return url.rstrip("/"), "project"
    return None


def code_links(text: str, *, own_hints: bool = True, all_own: bool = False) -> list[CodeLink]:
    """The code, model and project links in ``text`` (plain text, LaTeX or the abstract and comments of a
    paper), in order, the paper's own first: own where the sentence before the link says so ("our code",
    "code is available at", "project page:") and ``own_hints`` is set, or every link when ``all_own`` (the
    notes on the title). Other web pages count only as the paper's own project page."""
    found: list[CodeLink] = []
    hosted = [(m.start(), m.end()) for m in itertools.islice(_HOSTED.finditer(text), MAX_LINKS)]
    hosted = [h for h in hosted if h[0] == 0 or text[h[0] - 1] not in "@."]  # not me@github.com
    starts = [s for s, _ in hosted]
    spans = list(hosted)
    for m in itertools.islice(_ANY_URL.finditer(text), MAX_LINKS):
        k = bisect.bisect_left(starts, m.start())
        if k < len(starts) and starts[k] < m.end():
            continue  # the hosted link this URL is
        spans.append((m.start(), m.end()))
    for start, end in sorted(spans):
        norm = _normal(text[start:end])
        if norm is None:
            continue
        url, kind = norm
        before = text[max(0, start - 160) : start]
        sentence = re.split(r"(?<=[.!?])\s+(?=[A-Z])|\n\n", before)[-1]
        own = all_own or (own_hints and bool(_OWN.search(sentence)))
        if kind == "project" and not (own or _PROJECT_CONTEXT.search(sentence) or ".github.io" in url):
            continue
        found.append(CodeLink(url=url, kind=kind, own=own))
    return _merge(found)


def _merge(*lists: list[CodeLink]) -> list[CodeLink]:
    """One link per URL (own if any mention says so), the own ones first, each group in order found."""
    seen: dict[str, CodeLink] = {}
    for links in lists:
        for link in links:
            key = link.url.lower()
            if key not in seen or (link.own and not seen[key].own):
                seen[key] = link if key not in seen else replace(seen[key], own=True)
    links = list(seen.values())
    return [x for x in links if x.own] + [x for x in links if not x.own]
