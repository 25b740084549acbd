"""``papersift eval related|recommend|search|tldr``: argument checks and printing around the evaluation
harness (``ranking/harness.py``; ``reading/tldr_eval.py`` for TL;DRs), one JSON line per method or a table
against the baseline."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papersift.cli.common import (
    FormatOpt,
    HomeOpt,
    check_format,
    fail,
    load_settings,
    opened,
    progress_bar,
    refuse,
)
from papersift.cli.language import Speech
from papersift.records.messages import say as message

if TYPE_CHECKING:
    from papersift.index.indexes import Indexes
    from papersift.ranking.evaluate import Score
    from papersift.records.json_model import Shape

eval_app = typer.Typer(
    help="Measure ranking quality on citation data, and TL;DRs against gold ones, with baselines.",
    no_args_is_help=True,
)

CorpusOpt = Annotated[Path, typer.Option("--corpus", help="Papers (JSON lines) to build the store from.")]
RelevanceOpt = Annotated[Path, typer.Option("--relevance", help="{query_id, candidate_id, label} lines.")]
SplitOpt = Annotated[
    str, typer.Option("--split", help="all, tune or heldout: which half of the queries (by query paper id).")
]  # weights are chosen on ``tune`` only


def _check_split(split: str) -> None:
    from papersift.ranking.evaluate import SPLITS

    if split not in SPLITS:
        refuse("cli_one_of", 2, option="--split", allowed=", ".join(SPLITS), value=repr(split))


DEFAULT_CORPUS = Path("../shared/data/arxiv-20k.jsonl.gz")


def _embedding_bar(say: Speech) -> Callable[[int], AbstractContextManager[Callable[[int], None]]]:
    """The progress of embedding a corpus of ``total`` papers, its label said in ``say``'s language."""

    @contextmanager
    def bar_of(total: int) -> Iterator[Callable[[int], None]]:
        with progress_bar() as bar:
            task = bar.add_task(say.line("cli_bar_embedding_cached"), total=total)
            yield lambda n: bar.advance(task, n)

    return bar_of


def _evaluate(
    data: Path,
    corpus: Path,
    fmt: str,
    home: Path | None,
    run: Callable[[Indexes], list[Score]],
    reference: str | tuple[str, ...],
    line: type[Shape] | None = None,
    unit: str = "queries",
    split: str = "all",
    table: Callable[[list[Score], str], list[str]] | None = None,
) -> None:
    """Check the inputs, run on a fresh store of ``corpus``, print against ``reference`` (JSON: a ``line``
    a score, ``ScoreLine`` unless named)."""
    from papersift.ranking.evaluate import ScoreLine
    from papersift.ranking.harness import evaluate_fresh, score_table
    from papersift.services.listing import json_line

    check_format(fmt)
    _check_split(split)
    for path in (data, corpus):
        if not path.exists():
            refuse("cli_file_not_found", path=path)
    settings = load_settings(home)
    speech = Speech(settings.lang)
    scores = evaluate_fresh(
        settings,
        corpus,
        run,
        note=lambda text: typer.echo(speech(text), err=True),
        embedding=_embedding_bar(speech),
    )
    if fmt == "json":
        for score in scores:
            typer.echo(json_line((line or ScoreLine).made_of(score).dump()))
        return
    for text in table(scores, speech.lang) if table else score_table(scores, reference, unit, speech.lang):
        typer.echo(text)


def _citation_eval(kind: str, data: Path, corpus: Path, split: str, fmt: str, home: Path | None) -> None:
    """``eval related`` (``data``: relevance lines, against tf-idf) or ``eval search`` (citation
    sentences, against BM25)."""
    from papersift.ranking import evaluate as ev

    def run(indexes: Indexes) -> list[Score]:
        if kind == "related":
            return ev.evaluate_related(indexes, ev.read_relevance(data), split=split)
        return ev.evaluate_search(indexes, ev.read_contexts(data), split=split)

    _evaluate(
        data, corpus, fmt, home, run, "tfidf-arxiv-sanity" if kind == "related" else "bm25", split=split
    )


@eval_app.command("related")
def eval_related(
    relevance: RelevanceOpt,
    corpus: CorpusOpt = DEFAULT_CORPUS,
    split: SplitOpt = "all",
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Related papers vs tf-idf (arxiv-sanity-lite), BM25, dense cosine and RRF: nDCG@10, Recall@10, MRR."""
    _citation_eval("related", relevance, corpus, split, fmt, home)


@eval_app.command("recommend")
def eval_recommend(
    relevance: RelevanceOpt,
    corpus: CorpusOpt = DEFAULT_CORPUS,
    seed: Annotated[int, typer.Option("--seed", help="Draws each reader's library and random papers.")] = 0,
    library_sizes: Annotated[
        str, typer.Option("--library-sizes", help="Library sizes to measure, comma-separated (1,3,10,30).")
    ] = "1,3,10,30",
    half: Annotated[
        str,
        typer.Option("--half", "--split", help="all, tune or heldout: which half of the simulated readers."),
    ] = "all",
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Daily Papers ranking vs arxiv-sanity-lite's SVM and zotero-arxiv-daily per library size."""
    from papersift.ranking.evaluate import SPLITS, ReaderLine, evaluate_recommend, read_relevance

    if half not in SPLITS:
        refuse("cli_one_of", 2, option="--half", allowed=", ".join(SPLITS), value=repr(half))
    try:
        sizes = tuple(sorted({int(n) for n in library_sizes.split(",") if n.strip()}))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        refuse("cli_library_sizes", 2, value=repr(library_sizes))
    if not relevance.exists():
        refuse("cli_file_not_found", path=relevance)
    try:  # read before the store is built, so a bad file fails at once
        gold = read_relevance(relevance)
    except (OSError, EOFError, ValueError, KeyError, TypeError) as e:
        refuse("cli_not_relevance_lines", path=relevance, problem=e)
    _evaluate(
        relevance,
        corpus,
        fmt,
        home,
        lambda ix: evaluate_recommend(ix, gold, seed=seed, split=half, sizes=sizes),
        (),
        ReaderLine,
        table=_recommend_table,
    )


def _recommend_table(scores: list[Score], lang: str) -> list[str]:
    """``eval recommend``'s table, then how the per-tag rows were made and how many (reader, tag) pairs
    each size has."""
    from papersift.ranking.harness import recommend_table
    from papersift.ranking.simulated_readers import TAG_MIN, TAGS
    from papersift.records.catalogs import said

    lines = recommend_table(scores, lang)
    pairs = ", ".join(f"{s.library_size}: {s.queries}" for s in scores if s.method == "papersift-tag")
    if pairs:
        lines.append(said(message("eval_tags_note", tags=TAGS, least=TAG_MIN, pairs=pairs), lang))
    return lines


@eval_app.command("search")
def eval_search(
    contexts: Annotated[Path, typer.Option("--contexts", help="{citing_id, cited_id, context} lines.")],
    corpus: CorpusOpt = DEFAULT_CORPUS,
    split: SplitOpt = "all",
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Search by citation sentence vs BM25, dense cosine and RRF: nDCG@10, Recall@10, MRR."""
    _citation_eval("search", contexts, corpus, split, fmt, home)


@eval_app.command("tldr")
def eval_tldr(
    data: Annotated[
        Path,
        typer.Option("--data", help="{id, title, abstract, targets} lines (gold TL;DRs) or SciTLDR's."),
    ],
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """TL;DRs (the configured model's, else the extractive ones) vs Lead-1 and the oracle: ROUGE-1/2/L F1
    against gold TL;DRs, the best over each paper's."""
    from papersift.llm import client
    from papersift.reading.texts import make
    from papersift.reading.tldr_eval import TldrLine, evaluate_tldr, read_cases, score_table
    from papersift.records.messages import reason
    from papersift.services.listing import json_line

    check_format(fmt)
    settings = load_settings(home)
    if importlib.util.find_spec("rouge_score") is None:  # the [eval] extra
        fail(message("eval_no_rouge", install="pip install 'papersift[eval]'"), say=Speech(settings.lang))
    if not data.exists():
        refuse("cli_file_not_found", say=Speech(settings.lang), path=data)
    try:
        cases = read_cases(data)
    except (OSError, EOFError, ValueError) as e:
        fail(reason(e), say=Speech(settings.lang))

    def note(text: str) -> None:
        typer.echo(text, err=True)

    if not client.available(settings):
        scores = evaluate_tldr(cases, note=note, lang=settings.lang)
    else:  # the model's TL;DRs, made and stored as `summarize` makes them (made once, counted, budgeted)
        with opened(settings) as o, progress_bar() as bar:
            task = bar.add_task(
                o.say.line("cli_bar_tldrs_by", model=client.model_name(settings)), total=len(cases)
            )
            scores = evaluate_tldr(
                cases,
                (
                    client.model_name(settings),
                    lambda case: make(settings, o.store, case.paper(), "tldr", "en"),
                ),
                step=lambda: bar.advance(task),
                note=note,
                lang=settings.lang,
            )
    if fmt == "json":
        for score in scores:
            typer.echo(json_line(TldrLine.made_of(score).dump()))
        return
    for line in score_table(scores, settings.lang):
        typer.echo(line)
