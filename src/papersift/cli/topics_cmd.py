"""``papersift topics``: the topic map of a listing (``ranking/topics/``) as text or JSON.

The JSON is ``{"category", "date", "clusters": [{"label", "terms", "papers"}], "points": [{"id", "x", "y",
"cluster"}]}``, the shape of ``/api/map/...``; a cluster whose label is ``""`` (at most one, last) is the
day's other papers: the groups no phrase or category names, its terms their words.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

import typer

from papersift.cli.common import (
    CategoryArg,
    FormatOpt,
    HomeOpt,
    ListingDayOpt,
    check_format,
    opened_listing,
    refuse,
)
from papersift.sources.latex import plain_text


def topics(
    category: CategoryArg,
    day: ListingDayOpt = None,
    days: Annotated[int, typer.Option("--days", min=1, max=31, help="Days of listings ending --date.")] = 1,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """The topics of a day's listing: clusters of its papers, named by their distinctive terms, on a map."""
    from papersift.ranking.topics import listing_entries, map_json, topic_map
    from papersift.reading.topic_names import topic_namer
    from papersift.services.listing import json_line

    check_format(fmt)
    with opened_listing(home, category, day) as (o, when, _):
        entries = listing_entries(o.store, category, when, days)
        say = o.say
        if not entries:
            before = {"before": days - 1} if days > 1 else {}
            refuse(
                "cli_no_listing_days" if before else "no_listing_on",
                say=say,
                category=category,
                day=when,
                **before,
            )
        tmap = topic_map(o.indexes, [e.paper for e in entries], namer=topic_namer(o.settings, o.store))
    if fmt == "json":
        typer.echo(json_line(map_json(category, when.isoformat(), tmap)))
        return
    titles = {e.paper.id: plain_text(e.paper.title) for e in entries}
    span = f"{when - timedelta(days=days - 1)} … {when}" if days > 1 else str(when)
    typer.echo(
        say.line("cli_topics", category=category, span=span, n=len(entries), topics=len(tmap.clusters))
    )
    for n, topic in enumerate(tmap.clusters, 1):
        typer.echo(f"\n{n}. {topic.label or say.line('cli_other_papers')} · {len(topic.papers)}")
        if topic.terms:
            typer.echo(f"   {say.line('cli_terms', terms=', '.join(topic.terms))}")
        for pid in topic.papers:
            typer.echo(f"   {pid}  {titles[pid]}")
