"""The checks every model text passes before it is stored or shown (``reading/checks.py``): each rule on the
real bad outputs of issue 37 and more of their kinds (each caught, with its reason said in English and
中文) and on good outputs (none rejected); then through a real local server in OpenAI's chat-completions
shape (tests/llm_server.py): a failing text asked for once more with the rule it broke, stored as a failure
with its reason when it fails again, a too long TL;DR kept as its first sentence when that stands alone,
Ask answers held to their marks, and ``llm status`` counting the failures per reason."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from papersift.llm.status import status
from papersift.reading import checks, texts
from papersift.reading.passes import summarize
from papersift.reading.shown import lookup
from papersift.reading.topic_names import parse
from papersift.records.catalogs import said
from papersift.records.messages import Message, restored, stored
from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.store import Store
from papersift.store.rows import now
from tests.llm_server import completion, fake_model
from tests.model_outputs import BAD, GOOD, Output, outputs, papers


@pytest.fixture(scope="module")
def output_papers(shared_data: Path) -> dict[str, dict[str, str]]:
    """The real papers the recorded model outputs are about, by arXiv id."""
    return papers(shared_data)


def verdict(o: Output, output_papers: dict[str, dict[str, str]]) -> checks.Verdict:
    r = output_papers[o.paper]
    return checks.check(o.kind, o.text, o.lang, title=r["title"], abstract=r["abstract"], given=o.given)


def paper(output_papers: dict[str, dict[str, str]], pid: str) -> Paper:
    r = output_papers[pid]
    return Paper(pid, r["title"], list(r["authors"]), r["abstract"], list(r["categories"]), version=1)


def test_every_bad_output_fails_for_its_reason(
    shared_data: Path, output_papers: dict[str, dict[str, str]]
) -> None:
    for o in outputs(shared_data, BAD):
        found = verdict(o, output_papers)
        assert found.reason == o.reason, (o.name, found)
        assert found.sentence() and said(found.sentence(), "zh") != found.sentence(), o.name
        kept = restored(stored(found.sentence()))  # as a failure is stored and read back
        assert isinstance(kept, Message) and kept.key == f"check_{found.reason}", o.name
        assert said(kept, "zh") == said(found.sentence(), "zh"), o.name


def test_no_good_output_is_rejected(shared_data: Path, output_papers: dict[str, dict[str, str]]) -> None:
    rejected = [(o.name, verdict(o, output_papers)) for o in outputs(shared_data, GOOD)]
    assert [r for r in rejected if not r[1].ok] == []


def test_a_failure_is_said_in_english_and_chinese() -> None:
    wrong = checks.fail("wrong_language", asked="zh", got="en")
    assert wrong.sentence() == "the model answered in English where 中文 was asked"
    assert said(wrong.sentence(), "zh") == "要求用中文，模型却用英文作答"
    kept = orjson.loads(stored(wrong.sentence()))  # the failure as data: its key and arguments
    assert (kept["key"], kept["args"]["asked"]["key"], kept["args"]["got"]["key"]) == (
        "check_wrong_language",
        "language_zh",
        "language_en",
    )
    assert said(restored(stored(wrong.sentence())), "zh") == "要求用中文，模型却用英文作答"
    tag = checks.fail("markup", tag='<a href="x">')
    assert restored(stored(tag.sentence())).args == {"tag": '<a href="x">'}  # quotes in an argument survive


def test_the_rules_do_not_mistake_math_kept_terms_or_short_titles() -> None:
    assert checks.check("tldr", "It runs in $O(n<m)$ time with $x>y$ and beats BERT.", "en").ok
    assert checks.check("title", "GPT-4o", "zh", title="GPT-4o").ok  # nothing to translate
    kept = "我们在 ImageNet 和 COCO 上评测 Vision Transformer（ViT）与 Mixture of Experts 模型。"
    assert checks.check("abstract", kept, "zh").ok  # terms kept in English are not English sentences
    assert checks.cut_off("It works well.").ok and checks.cut_off("A new method for graphs").ok
    assert not checks.cut_off("It improves accuracy by 3 points and").ok


def settings_for(url: str) -> Settings:
    return Settings(llm_url=url, llm_model="fake-7b", llm_retries=0)  # type: ignore[call-arg]


def test_a_failing_text_is_asked_again_then_stored_as_a_failure(
    store: Store, shared_data: Path, output_papers: dict[str, dict[str, str]]
) -> None:
    title = paper(output_papers, "2608.19202")
    tagged = "<paper>AI Agent Context Acquisition: Active Inference</paper>"
    with fake_model([completion(tagged), completion("AI Agent Context Acquisition: Active Inference")]) as m:
        made = texts.make(settings_for(m.url), store, title, "title", "zh")
        again = m.seen[1].body["messages"]
    assert made.state == "failed" and made.text is None
    assert made.error == "the model answered in English where 中文 was asked"
    assert isinstance(made.error, Message) and made.error.key == "check_wrong_language"
    assert again[-2] == {"role": "assistant", "content": tagged}
    assert "not accepted: the model's text carries markup or a prompt tag: <paper>" in again[-1]["content"]
    shown = lookup(settings_for(m.url), store, [title], "zh").zh(title)
    assert shown is not None and shown.title is None and shown.error == made.error  # visible, never the text
    english_tldr = next(o for o in BAD if o.name == "English TL;DR labelled zh (2608.19202)").text
    with fake_model(
        [completion(english_tldr), completion("本文把上下文获取视为主动推断，并评测了前沿语言模型。")]
    ) as m:
        fixed = texts.make(settings_for(m.url), store, title, "tldr", "zh")
    assert fixed.state == "done" and fixed.text == "本文把上下文获取视为主动推断，并评测了前沿语言模型。"
    checked = status(settings_for(m.url), store).dump()
    assert checked["checks"] == {"failed": 1, "reasons": {"wrong_language": 1}}


def test_a_four_sentence_tldr_becomes_its_first_sentence_never_a_cut_word(
    store: Store, output_papers: dict[str, dict[str, str]]
) -> None:
    lora = paper(output_papers, "2608.19800")
    cut = next(o for o in BAD if o.name == "four-sentence TL;DR cut mid-word").text
    with fake_model([completion(cut), completion(cut)]) as m:
        made = texts.make(settings_for(m.url), store, lora, "tldr", "en")
        stricter = m.seen[1].body["messages"][-1]["content"]
    assert "ONE sentence of at most 30 words" in stricter
    assert made.state == "done" and made.text == cut.split(". ")[0] + "."
    assert "…" not in (made.text or "") and "while p" not in (made.text or "")
    title_echo = lora.title
    with fake_model([completion(title_echo), completion(title_echo)]) as m:
        echo = texts.make(settings_for(m.url), store, lora, "tldr", "zh")
    assert echo.state == "failed" and isinstance(echo.error, Message)
    assert echo.error.key == "check_wrong_language" and echo.error.args["asked"] == "中文"


def test_ask_answers_carry_marks_naming_only_the_papers_given(
    store: Store, output_papers: dict[str, dict[str, str]]
) -> None:
    two = [paper(output_papers, "2608.19202"), paper(output_papers, "2608.19203")]
    unmarked = next(o for o in BAD if o.name == "Ask answer without marks").text
    seven = next(o for o in BAD if o.name == "Ask answer citing [7] of two papers").text
    good = next(o for o in GOOD if o.name == "Ask answer with marks").text
    with fake_model([completion(unmarked), completion(good)]) as m:
        answer = texts.ask(settings_for(m.url), store, two, "What do they do?")
        asked = m.seen[0].body["messages"][0]["content"]
    assert "the papers are [1] to [2]" in asked
    assert answer.error is None and answer.text == good and answer.marks() == [1, 2]
    with fake_model([completion(unmarked), completion(seven)]) as m:
        failed = texts.ask(settings_for(m.url), store, two, "What do they do?")
    assert failed.text is None
    assert failed.error == "the answer cites [7], which names none of the 2 given"
    assert isinstance(failed.error, Message) and failed.error.args == {"mark": "7", "given": "2"}


def test_summarize_reports_the_failed_checks_as_failures(
    store: Store, output_papers: dict[str, dict[str, str]]
) -> None:
    agents = paper(output_papers, "2608.19202")
    mixed = next(o for o in BAD if o.name == "zh abstract mixing English (2608.19202)").text
    english = "The paper frames context acquisition for AI agents as active inference."
    tagged = "<paper>AI Agent Context Acquisition: Active Inference</paper>"
    answers = [completion(t) for t in (english, english, tagged, tagged, mixed, mixed)]
    with fake_model(answers) as m:
        made = summarize(settings_for(m.url), store, [agents], "zh")
    assert made.made == 0 and len(made.failures) == 3
    assert made.line() == "summarize: 0 made, 0 already stored, 3 failed"
    assert [getattr(f.error, "key", None) for f in made.failures] == [
        "check_wrong_language",
        "check_markup",
        "check_mixed_language",
    ]
    counted = status(settings_for(m.url), store).dump()["checks"]
    assert counted == {"failed": 3, "reasons": {"markup": 1, "mixed_language": 1, "wrong_language": 1}}


def test_a_text_made_before_the_checks_is_checked_when_shown(
    store: Store, output_papers: dict[str, dict[str, str]]
) -> None:
    echo = paper(output_papers, "2608.19203")
    settings = settings_for("http://127.0.0.1:9/v1")
    old = texts.reading_key(settings, echo, "tldr", "en")
    old = type(old)(
        old.paper_id, old.version, old.model, "tldr-1", old.lang, old.kind
    )  # the unchecked prompt
    store.claim_reading(old, stale_before=now())
    store.finish_reading(old, echo.title, None)  # the newcomer's TL;DR: the title word for word
    shown = lookup(settings, store, [echo]).tldr(echo).dump()
    assert shown["text"] is None and shown["error"] == "the TL;DR repeats the title"


def test_topic_names_from_a_model_are_checked_too() -> None:
    assert parse('["Protein design", "Graph neural networks"]', 2) == [
        "Protein design",
        "Graph neural networks",
    ]
    for bad in ('["<b>Protein</b> design", "Graphs"]', '["蛋白质设计方法", "Graphs"]'):
        with pytest.raises(ValueError, match="failed its check"):
            parse(bad, 2)
