"""XML helpers shared by the XML readers (OAI-PMH, API Atom, RSS): tolerant parsing, whole or streamed,
elements matched by local name whatever their namespace (arXiv's feeds use undeclared prefixes), and freeing
streamed elements.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from lxml import etree

from papersift.records.paper import clean_text


def parse_document(data: bytes) -> tuple[etree._Element | None, str]:
    """Parse a whole body: (root, "") or (None, why); undeclared namespace prefixes are tolerated."""
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        return None, f"not well-formed XML: {exc.msg}"
    problems = [
        e
        for e in parser.error_log
        if e.domain != etree.ErrorDomains.NAMESPACE and e.level >= etree.ErrorLevels.ERROR
    ]
    if problems:
        return None, f"not well-formed XML: {problems[0].message} (line {problems[0].line})"
    if root is None:
        return None, "not well-formed XML: no root element"
    return root, ""


class WrongRootError(Exception):
    """A streamed document whose root element is not the one its reader reads."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name  # the root's local name


class MalformedXmlError(Exception):
    """A streamed document that breaks: where (``line N``, or ``end of file``) and the parser's message."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


def iterparse(stream: IO[bytes]) -> Any:
    """An ``etree.iterparse`` of ``stream``'s start and end events, as safe as ``parse_document``'s parser:
    iterate it for ``(event, element)``; its ``error_log`` holds what the parser met."""
    return etree.iterparse(
        stream,
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        huge_tree=True,
    )


def stream_ends(stream: IO[bytes], root: str) -> Iterator[tuple[str, etree._Element]]:
    """Each element of a streamed document as it ends, with its local name.

    Raises ``WrongRootError`` when the root element is not called ``root``, and ``MalformedXmlError`` where
    the XML breaks; a break that is only undeclared namespace prefixes just ends the stream.
    """
    context = iterparse(stream)
    seen_root = False
    try:
        for event, el in context:
            name = local(el)
            if event == "end":
                yield name, el
            elif not seen_root:
                if name != root:
                    raise WrongRootError(name)
                seen_root = True
    except etree.XMLSyntaxError as exc:
        if not _namespace_only(context.error_log):
            where = f"line {exc.lineno}" if exc.lineno else "end of file"
            raise MalformedXmlError(where, exc.msg) from exc


def _namespace_only(log: etree._ListErrorLog) -> bool:
    """True when every logged parse error is an undeclared namespace prefix (harmless here)."""
    errors = list(log)
    return bool(errors) and all(e.domain == etree.ErrorDomains.NAMESPACE for e in errors)


def local(el: etree._Element) -> str:
    """An element's name without namespace or prefix ("" for comments and processing instructions)."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2].rpartition(":")[2]


def elements(el: etree._Element) -> list[etree._Element]:
    return [c for c in el if isinstance(c.tag, str)]


def children(el: etree._Element | None, name: str) -> list[etree._Element]:
    return [c for c in elements(el) if local(c) == name] if el is not None else []


def child(el: etree._Element | None, name: str) -> etree._Element | None:
    found = children(el, name)
    return found[0] if found else None


def text(el: etree._Element | None, name: str) -> str | None:
    """The text of the first child called ``name`` (any namespace), or None."""
    node = child(el, name)
    return "".join(t for t in node.itertext() if isinstance(t, str)) if node is not None else None


def optional(el: etree._Element, name: str) -> str | None:
    """A child's cleaned text, None when absent or blank."""
    return clean_text(text(el, name)) or None


def to_int(value: str | None) -> int | None:
    try:
        return int(value.strip()) if value is not None else None
    except ValueError:
        return None


def release(el: etree._Element) -> None:
    """Free a streamed element and the siblings already read before it."""
    el.clear()
    parent = el.getparent()
    while parent is not None and el.getprevious() is not None:
        del parent[0]
