"""Acronyms in a query: a short form the papers define (``GNN``) brings its long form ("graph neural
network"), and a long form its short form, into the keyword query (as ``a OR b``) and the tf-idf side.
The pairs are the vocabulary's (``index.vocabulary``: learned from the papers' own definitions)."""

from __future__ import annotations

from papersift.index.vocabulary import Vocabulary, long_key
from papersift.ranking.query_form import TOKEN
from papersift.records.analyzer import singular_acronym


def expand(vocabulary: Vocabulary, text: str) -> tuple[str, list[tuple[str, str]]]:
    """The keyword query with each acronym and long form ORed with its other form, and the pairs."""
    tokens = [(m.start(), m.end(), m.group(3)) for m in TOKEN.finditer(text) if m.group(3) is not None]
    longs = _long_forms(vocabulary)
    out: list[str] = []
    pairs: list[tuple[str, str]] = []
    last, i = 0, 0
    while i < len(tokens):
        start, end, token = tokens[i]
        if token.startswith("-") or token == "OR":
            i += 1
            continue
        matched = None
        for span in range(min(6, len(tokens) - i), 1, -1):  # the longest long form starting here
            words = [t for _, _, t in tokens[i : i + span]]
            key = long_key(" ".join(words))
            if key in longs and len(key.split()) == span:
                matched = (span, longs[key][0], " ".join(words))
                break
        if matched is not None:
            span, short, phrase = matched
            end = tokens[i + span - 1][1]
            out.append(text[last:start] + f'"{phrase}" OR {short}')
            pairs.append((phrase, short))
            last, i = end, i + span
            continue
        found = short_form(vocabulary, token.strip(".,;:()"))
        if found is not None:
            short, long_form = found
            out.append(text[last:start] + f'{token} OR "{long_form}"')
            pairs.append((token, long_form))
            last = end
        i += 1
    out.append(text[last:])
    return "".join(out), pairs


def short_form(vocabulary: Vocabulary, token: str) -> tuple[str, str] | None:
    """(short form, its long form) when ``token`` is a short form the papers define."""
    bare = singular_acronym(token)
    # a short form as the papers write it ("GNN", "ViT"), or all in lower case ("gnn"): never a
    # capitalised word ("Deep", "Data", "Non": a title's words are not DEEP, DATA or NON)
    forms = vocabulary.acronyms.get(bare) or (
        vocabulary.acronyms.get(bare.upper()) if bare.islower() else None
    )
    if not forms:
        return None
    long_form, n = max(forms.items(), key=lambda item: item[1])
    if not long_form.strip():
        return None
    if 2 * n < sum(forms.values()):  # no long form most of its definitions agree on
        return None
    # "gnn" for GNN, but never "map" for MAP: a lower-case word must mostly be the acronym
    if bare.islower() and (len(bare) < 3 or vocabulary.df(bare) > 3 * sum(forms.values())):
        return None
    return bare, long_form


def _long_forms(vocabulary: Vocabulary) -> dict[str, tuple[str, str]]:
    """Long form → (its commonest short form, the first word of the long form), built once per object."""
    longs: dict[str, tuple[str, str]] | None = vocabulary.__dict__.get("_long_forms")
    if longs is None:
        best: dict[str, tuple[int, str]] = {}
        for short, forms in vocabulary.acronyms.items():
            form, n = max(forms.items(), key=lambda item: item[1])
            # only a short form's dominant long form brings it: "diffusion model" never brings DM (dark
            # matter in most of the papers defining it)
            if form.strip() and 2 * n >= sum(forms.values()) and n > best.get(form, (0, ""))[0]:
                best[form] = (n, short)
        longs = {form: (short, form.split()[0]) for form, (_, short) in best.items()}
        vocabulary.__dict__["_long_forms"] = longs
    return longs
