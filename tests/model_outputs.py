"""Model outputs the checks of ``reading/checks.py`` are tested and measured on (``bench/checks.py``): the
bad ones a newcomer's session stored as success (issue 37: a 中文 title in English inside the prompt's
``<paper>`` tags, English TL;DRs labelled 中文, a TL;DR that is its paper's title word for word, 中文
abstracts mixing English into sentences, a four-sentence TL;DR cut mid-word, Ask answers without marks or
with a mark naming no given paper) and more of their kinds, and good ones that must all pass.

Each is about one of three real papers of 2026-08-21 (``PAPERS``), read from ``../shared/data`` by
``papers``; ``TITLE_ECHO`` stands for that paper's title, put in when the outputs are read (``outputs``).
"""

# ruff: noqa: E501  (the 中文 outputs: two columns a character)
from __future__ import annotations

import gzip
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import orjson

PAPERS = ("2608.19800", "2608.19202", "2608.19203")
TITLE_ECHO = "\x00title"


@dataclass(frozen=True)
class Output:
    """A model's text of ``kind`` in ``lang`` about paper ``paper`` (``given``: papers an Ask had), and
    the reason its check must give (None: it must pass)."""

    name: str
    kind: str
    lang: str
    paper: str
    text: str
    reason: str | None = None
    given: int = 2


BAD = [
    # issue 37, as stored: the 中文 title of 2608.19202, English, with the prompt's tags
    Output(
        "zh title in English with <paper> tags",
        "title",
        "zh",
        "2608.19202",
        "<paper>AI Agent Context Acquisition: Active Inference</paper>",
        "markup",
    ),
    Output(
        "zh title in English",
        "title",
        "zh",
        "2608.19202",
        "AI Agent Context Acquisition: Active Inference",
        "wrong_language",
    ),
    # issue 37: the 中文 TL;DRs were English, labelled "lang": "zh"
    Output(
        "English TL;DR labelled zh (2608.19202)",
        "tldr",
        "zh",
        "2608.19202",
        "The paper frames context acquisition for AI agents as active inference and benchmarks frontier "
        "language models on optimal question asking.",
        "wrong_language",
    ),
    Output(
        "English TL;DR labelled zh (2608.19800)",
        "tldr",
        "zh",
        "2608.19800",
        "LoRA-GA$^2$ uses multi-step gradient information to close the gap between LoRA and full "
        "fine-tuning.",
        "wrong_language",
    ),
    Output(
        "English TL;DR labelled zh (2608.19203)",
        "tldr",
        "zh",
        "2608.19203",
        "Asymmetric Attention Heads give each attention head its own context span and lower validation loss.",
        "wrong_language",
    ),
    # issue 37: the TL;DR of 2608.19203 was its title word for word
    Output("TL;DR = title word for word", "tldr", "en", "2608.19203", TITLE_ECHO, "copies_title"),
    Output("zh TL;DR = the English title", "tldr", "zh", "2608.19203", TITLE_ECHO, "wrong_language"),
    Output(
        "TL;DR = title with a preface",
        "tldr",
        "en",
        "2608.19203",
        "This paper presents " + TITLE_ECHO + ".",
        "copies_title",
    ),
    Output(
        "TL;DR copies an abstract sentence",
        "tldr",
        "en",
        "2608.19202",
        "We also study clarification before generation and automated prompt optimization under token budgets.",
        "copies_abstract",
    ),
    # issue 37: 中文 abstracts mixing English into sentences
    Output(
        "zh abstract mixing English (2608.19202)",
        "abstract",
        "zh",
        "2608.19202",
        "交互式 AI 智能体必须尽可能高效地获取正确的上下文。When a user omits a constraint, preference, file, "
        "or task variable, 智能体可以沿用默认假设，或者花费 token 去提出澄清问题、调用检索或工具、或尝试不同的"
        "提示。我们将这一权衡形式化为面向上下文获取的主动推断。内层推断步骤更新对潜在任务状态的信念，外层决策"
        "选择下一个上下文动作、任务动作或停止动作，以在成本约束下最小化期望自由能。在确定性设置中，认知项退化为"
        "期望信息增益，并可按 token 成本归一化。我们在 Optimal Question Asking (OQA) 中实例化了该框架，"
        "并在 25 到 300 个候选的二分类与多分类任务上评测了前沿语言模型。我们还研究了生成前的澄清以及 token "
        "预算下的自动提示优化。该形式化与模型无关，将主动推断视为 AI 智能体上下文获取层的设计原则。",
        "mixed_language",
    ),
    Output(
        "zh abstract mixing English (2608.19203)",
        "abstract",
        "zh",
        "2608.19203",
        "标准的多头注意力（MHA）为每个头提供相同的完整因果上下文跨度，尽管不同的头可以承担不同的上下文角色。"
        "有些头可能主要依赖邻近的词汇或句法上下文，而另一些则依赖更长程的关系。我们提出非对称注意力头（AAH），"
        "一种逐头的上下文分配框架，which treats context length as an explicit per-head or per-group "
        "allocation variable。AAH 使用特征统计对头分组，分层组织这些组，并分配因果局部窗口，同时保留标准的"
        "扁平 MHA 输出接口。在 4096 token 的 seed-0 实验中，several AAH-style local-allocation variants "
        "achieve lower validation loss than pure full attention。短预算消融表明，稳定的局部分配与头窗口分配"
        "结构是重要的。我们将 AAH 视为一种用于质量与分析的结构化逐头上下文分配机制，并报告注意力覆盖率（ACR）"
        "作为所选窗口路由的诊断指标。",
        "mixed_language",
    ),
    Output(
        "zh abstract: the English abstract back",
        "abstract",
        "zh",
        "2608.19203",
        "Standard multi-head attention (MHA) gives every head the same full causal context span, although "
        "heads can serve different contextual roles. We present Asymmetric Attention Heads (AAH), a head-wise "
        "context-allocation framework.",
        "wrong_language",
    ),
    Output(
        "zh abstract cut to its first sentence",
        "abstract",
        "zh",
        "2608.19202",
        "交互式 AI 智能体必须尽可能高效地获取正确的上下文。",
        "length_off",
    ),
    Output(
        "zh abstract stopped at the token limit",
        "abstract",
        "zh",
        "2608.19800",
        "低秩适应（LoRA）是大模型的一种主流微调方法，能以更低的显存开销取得有竞争力的性能。然而，LoRA 与全量"
        "微调之间仍存在持续的性能差距。近期研究尝试用预训练权重的单步梯度近似来缩小这一差距，使 LoRA 的更新与"
        "全量微调更新的主方向或内在维度对齐。但这些方法未能刻画梯度的完整动态。本文提出 LoRA-GA$^2$，一种充分"
        "利用多步梯度信息的高效微调算法。具体而言，我们引入一个轻量级探针来获取预训练权重的多步梯度，它不产生"
        "额外的 GPU 显存开销，时间开销也很小。我们进一步采用谱感知、基于重要性的秩分配，以及由多步梯度导出的"
        "最优初始化。大量实验结果表明，LoRA-GA$^2$ 在保持原始 LoRA 效率优势的同时，始终优于现有的",
        "cut_off",
    ),
    Output(
        "zh title that lost its math",
        "title",
        "zh",
        "2608.19800",
        "LoRA-GA：基于多步梯度自适应对齐的低秩适应",
        "math_lost",
    ),
    # issue 37: a model TL;DR on /abs/2608.19800 ran to four sentences and was cut mid-word
    Output(
        "four-sentence TL;DR cut mid-word",
        "tldr",
        "en",
        "2608.19800",
        "LoRA-GA$^2$ is a fine-tuning algorithm that uses multi-step gradient information to align LoRA "
        "updates with full fine-tuning. It adds a lightweight probe for multi-step gradients that needs no "
        "extra GPU memory. It allocates ranks by spectrum-aware importance and initializes them from the "
        "gradients. Experiments show that it outperforms existing LoRA variants while p…",
        "cut_off",
    ),
    Output(
        "four-sentence TL;DR",
        "tldr",
        "en",
        "2608.19800",
        "LoRA-GA$^2$ is a fine-tuning algorithm that uses multi-step gradient information. It adds a "
        "lightweight probe that needs no extra GPU memory. It allocates ranks by spectrum-aware importance. "
        "It beats the leading baseline by 0.66 points on GLUE.",
        "several_sentences",
    ),
    Output(
        "TL;DR stopped at the token limit",
        "tldr",
        "en",
        "2608.19800",
        "LoRA-GA$^2$ aligns LoRA updates with multi-step gradients and outperforms existing LoRA variants on "
        "GLUE, GSM8K and HumanEval while p",
        "cut_off",
    ),
    Output(
        "one run-on TL;DR sentence",
        "tldr",
        "en",
        "2608.19800",
        "LoRA-GA$^2$ is an effective fine-tuning algorithm that fully leverages multi-step gradient "
        "information through a lightweight probe for multi-step gradients of pretrained weights that incurs "
        "no additional GPU memory cost and only marginal time overhead together with a spectrum-aware "
        "importance-based rank allocation and an optimal initialization derived from multi-step gradients, "
        "outperforming existing LoRA variants on GLUE, GSM8K and HumanEval.",
        "too_long",
    ),
    # issue 37: Ask answers carried no [n] marks
    Output(
        "Ask answer without marks",
        "ask",
        "en",
        "2608.19202",
        "The first paper treats context acquisition as active inference, while the second gives attention "
        "heads different context spans.",
        "no_marks",
    ),
    Output(
        "Ask answer citing [7] of two papers",
        "ask",
        "en",
        "2608.19202",
        "The first paper treats context acquisition as active inference [1]. The second gives each "
        "attention head its own context span [7].",
        "unknown_mark",
    ),
    Output(
        "zh Ask answer in English",
        "ask",
        "zh",
        "2608.19202",
        "The first paper treats context acquisition as active inference [1], and the second gives each "
        "attention head its own context span [2].",
        "wrong_language",
    ),
    Output(
        "zh FAQ in English",
        "faq",
        "zh",
        "2608.19202",
        "## What problem does the paper address?\nHow an AI agent should acquire missing context at the "
        "lowest cost.\n\n## Summary\nActive inference as a design principle for context acquisition.",
        "wrong_language",
    ),
    Output(
        "FAQ with a leaked prompt tag",
        "faq",
        "en",
        "2608.19202",
        "## What problem does the paper address?\nHow an agent should ask for context.\n</abstract>\n"
        "## Summary\nActive inference for context acquisition.",
        "markup",
    ),
    Output(
        "English TL;DR with an HTML tag",
        "tldr",
        "en",
        "2608.19800",
        "LoRA-GA$^2$ aligns LoRA with multi-step gradients<br>and beats LoRA variants on GLUE.",
        "markup",
    ),
    Output(
        "English TL;DR answered in 中文",
        "tldr",
        "en",
        "2608.19800",
        "LoRA-GA$^2$ 利用多步梯度信息对齐 LoRA 更新，在 GLUE 上超过最强基线。",
        "wrong_language",
    ),
]

GOOD = [
    Output(
        "TL;DR (2608.19800)",
        "tldr",
        "en",
        "2608.19800",
        "LoRA-GA$^2$ probes multi-step gradients at almost no memory cost to allocate ranks and initialize "
        "LoRA, beating the best LoRA variants by 0.66 points on GLUE and 1.03 on GSM8K.",
    ),
    Output(
        "TL;DR (2608.19202)",
        "tldr",
        "en",
        "2608.19202",
        "Treating what an AI agent should ask or look up next as active inference, with expected information "
        "gain per token, gives a model-agnostic way to acquire missing context.",
    ),
    Output(
        "TL;DR (2608.19203)",
        "tldr",
        "en",
        "2608.19203",
        "Giving attention heads grouped, hierarchical local windows instead of one full span lowers "
        "validation loss in 4096-token experiments.",
    ),
    Output(
        "TL;DR with math and no closing period",
        "tldr",
        "en",
        "2608.19800",
        "Multi-step gradient probes make LoRA initialization 1.24$\\times$ closer to full fine-tuning at "
        "no extra GPU memory",
    ),
    Output(
        "zh TL;DR (2608.19800)",
        "tldr",
        "zh",
        "2608.19800",
        "LoRA-GA$^2$ 利用多步梯度信息为 LoRA 分配秩并初始化，几乎不增加显存开销，在 GLUE 上平均超过最强基线 "
        "0.66 分。",
    ),
    Output(
        "zh TL;DR (2608.19202)",
        "tldr",
        "zh",
        "2608.19202",
        "本文把 AI 智能体获取上下文的过程形式化为主动推断，以单位 token 的期望信息增益决定何时提问、检索或停止。",
    ),
    Output(
        "zh TL;DR (2608.19203)",
        "tldr",
        "zh",
        "2608.19203",
        "非对称注意力头（AAH）为不同的头分配分层的局部窗口，在 4096 token 实验中验证损失低于全注意力。",
    ),
    Output(
        "zh title (2608.19800)",
        "title",
        "zh",
        "2608.19800",
        "LoRA-GA$^2$：基于多步梯度自适应对齐的低秩适应",
    ),
    Output("zh title (2608.19202)", "title", "zh", "2608.19202", "主动推断：AI 智能体的上下文获取"),
    Output(
        "zh title (2608.19203)",
        "title",
        "zh",
        "2608.19203",
        "非对称注意力头：面向 Transformer 注意力的结构化逐头上下文分配",
    ),
    Output(
        "zh abstract (2608.19800)",
        "abstract",
        "zh",
        "2608.19800",
        "低秩适应（LoRA）是大模型的一种主流微调方法，能以更低的显存开销取得有竞争力的性能。然而，LoRA 与全量"
        "微调之间仍存在持续的性能差距。近期研究尝试用预训练权重的单步梯度近似来缩小这一差距，使 LoRA 的更新与"
        "全量微调更新的主方向或内在维度对齐。但这些方法未能刻画梯度的完整动态。本文提出 LoRA-GA$^2$，一种充分"
        "利用多步梯度信息的高效微调算法。具体而言，我们引入一个轻量级探针来获取预训练权重的多步梯度，它不产生"
        "额外的 GPU 显存开销，时间开销也很小。我们进一步采用谱感知、基于重要性的秩分配，以及由多步梯度导出的"
        "最优初始化。大量实验结果表明，LoRA-GA$^2$ 在保持原始 LoRA 效率优势的同时，始终优于现有的 LoRA 变体。"
        "例如，LoRA-GA$^2$ 在 GLUE 基准上平均超过最强基线 0.66 分，在 GSM8K 和 HumanEval 上分别超过最强基线 "
        "1.03 分和 0.87 分。",
    ),
    Output(
        "zh abstract (2608.19202)",
        "abstract",
        "zh",
        "2608.19202",
        "交互式 AI 智能体必须尽可能高效地获取正确的上下文。当用户遗漏了某个约束、偏好、文件或任务变量时，智能体"
        "可以沿用默认假设继续执行，也可以花费 token 提出澄清问题、调用检索或工具，或尝试不同的提示。我们将这一"
        "权衡形式化为面向上下文获取的主动推断。内层推断步骤更新对潜在任务状态的信念，外层决策选择下一个上下文"
        "动作、任务动作或停止动作，以在成本约束下最小化期望自由能。在确定性设置中，认知项退化为期望信息增益，"
        "并可按 token 成本归一化。我们在最优提问（Optimal Question Asking，OQA）中实例化该框架，给出精确后验与"
        "动态规划预言机，并在候选数从 25 到 300 的二分类与多分类任务上评测前沿语言模型。我们还研究了生成前的"
        "澄清以及 token 预算下的自动提示优化。该形式化与模型无关，将主动推断视为 AI 智能体上下文获取层的设计"
        "原则。",
    ),
    Output(
        "zh abstract (2608.19203)",
        "abstract",
        "zh",
        "2608.19203",
        "标准的多头注意力（MHA）为每个头提供相同的完整因果上下文跨度，尽管不同的头可以承担不同的上下文角色。"
        "有些头可能主要依赖邻近的词汇或句法上下文，另一些则依赖更长程的关系，例如实体交互、篇章联系或状态变化。"
        "我们提出非对称注意力头（Asymmetric Attention Heads，AAH），这是一种逐头的上下文分配框架，把上下文长度"
        "视为每个头或每组头的显式分配变量。AAH 利用特征统计对头分组，分层组织这些组，并分配因果局部窗口，同时"
        "保留标准的扁平 MHA 输出接口。在 4096 token、seed-0 的实验中，若干 AAH 式局部分配变体的验证损失低于纯"
        "全注意力。短预算消融表明，稳定的局部分配与头窗口分配结构很重要，而固定或局部的对照方案可以与自适应"
        "层次结构相竞争。我们将 AAH 视为一种服务于质量与分析的结构化逐头上下文分配机制，并以注意力覆盖率"
        "（Attention Coverage Ratio，ACR）作为所选窗口路由的诊断指标。",
    ),
    Output(
        "FAQ (2608.19202)",
        "faq",
        "en",
        "2608.19202",
        "## What problem does the paper address?\nHow an AI agent should acquire missing context (ask, "
        "retrieve, call a tool) at the lowest token cost.\n\n## Summary\n- Active inference as a design "
        "principle for the context-acquisition layer of **AI agents**.",
    ),
    Output(
        "zh FAQ (2608.19202)",
        "faq",
        "zh",
        "2608.19202",
        "## 这篇论文试图解决什么问题？\nAI 智能体在缺少约束、偏好或文件时，应当如何以最少的 token 获取所需的"
        "上下文。\n\n## 总结\n- 把主动推断作为 **AI 智能体** 上下文获取层的设计原则。",
    ),
    Output(
        "Ask answer with marks",
        "ask",
        "en",
        "2608.19202",
        "The first paper treats context acquisition as active inference [1]; the second gives each attention "
        "head its own context span [2].",
    ),
    Output(
        "zh Ask answer with marks",
        "ask",
        "zh",
        "2608.19202",
        "第一篇论文把上下文获取视为主动推断 [1]；第二篇为每个注意力头分配各自的上下文跨度 [2]。",
    ),
    Output(
        "Ask answer: the papers do not say",
        "ask",
        "en",
        "2608.19202",
        "Neither paper reports results on vision tasks [1][2].",
    ),
]


@lru_cache(maxsize=1)
def papers(shared_data: Path) -> dict[str, dict[str, str]]:
    """The three papers' records (title, abstract), read once from the 300k file."""
    wanted = {f'"id": "{pid}"'.encode() for pid in PAPERS}
    found: dict[str, dict[str, str]] = {}
    with gzip.open(shared_data / "arxiv-300k.jsonl.gz", "rb") as f:
        for line in f:
            if line[1:19] in wanted:
                record = orjson.loads(line)
                found[record["id"]] = record
                if len(found) == len(PAPERS):
                    break
    return found


def outputs(shared_data: Path, which: list[Output]) -> list[Output]:
    """``which`` with each ``TITLE_ECHO`` replaced by its paper's title."""
    records = papers(shared_data)
    return [replace(o, text=o.text.replace(TITLE_ECHO, records[o.paper]["title"])) for o in which]
