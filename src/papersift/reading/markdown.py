"""The small Markdown subset a model's FAQ or answer is shown in, as HTML that is safe by construction:
every character of the text is escaped first, then only ``## headings``, ``- bullets``, ``**bold**``,
paragraphs and the paper marks ``[1]`` (``[1 §3]``) become markup (no links, no images, no raw HTML, no
attributes from the text)."""

from __future__ import annotations

import html
import re

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_MARK = re.compile(r"\[(\d{1,2}(?:\s*§\s*[\w.]{1,12})?)\]")  # [1], [1 §3.2] (a section of its full text)


def _inline(text: str) -> str:
    out = _BOLD.sub(r"<strong>\1</strong>", html.escape(text, quote=True))
    return _MARK.sub(r'<sup class="mark">[\1]</sup>', out)


def to_html(text: str) -> str:
    """``text`` (a model's Markdown) as escaped HTML of headings, lists, paragraphs, bold and marks."""
    out: list[str] = []
    in_list = False
    paragraph: list[str] = []

    def flush() -> None:
        nonlocal in_list
        if paragraph:
            out.append("<p>" + _inline(" ".join(paragraph)) + "</p>")
            paragraph.clear()
        if in_list:
            out.append("</ul>")
            in_list = False

    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            flush()
        elif line.startswith("#"):
            flush()
            out.append("<h3>" + _inline(line.lstrip("#").strip()) + "</h3>")
        elif line[:2] in ("- ", "* ") or re.match(r"\d+\.\s", line):
            if paragraph:
                out.append("<p>" + _inline(" ".join(paragraph)) + "</p>")
                paragraph.clear()
            if not in_list:
                out.append("<ul>")
                in_list = True
            out.append("<li>" + _inline(re.sub(r"^(?:[-*]|\d+\.)\s+", "", line)) + "</li>")
        else:
            paragraph.append(line)
    flush()
    return "\n".join(out)
