"""Interface text in English and 中文 (paper text is never translated), and how a request picks one."""

from __future__ import annotations

import re
from collections.abc import Callable

LANGUAGES = ("en", "zh")

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "title": "papersift",
        "tagline": "arXiv, sifted",
        "new": "new",
        "cross": "cross-lists",
        "replace": "replacements",
        "previous": "previous day",
        "next": "next day",
        "related": "Related papers",
        "why": "why",
        "search": "Search",
        "search_placeholder": 'words, "phrases", or an arXiv id',
        "related_text": "Related papers for any text",
        "related_placeholder": "paste an abstract…",
        "find": "Find",
        "abstract": "Abstract",
        "more": "more",
        "no_results": "No results.",
        "not_found": "Not found",
        "bad_request": "Bad request",
        "category": "Category",
        "all_categories": "all categories",
        "since": "since",
        "mode": "mode",
        "same_category": "same category",
        "last_years": "last 5 years",
        "any_time": "any time",
        "facet": "alike in",
        "whole_paper": "the whole paper",
        "facet_background": "background",
        "facet_method": "method",
        "facet_result": "results",
        "listing": "Listing",
        "language": "中文",
        "page": "page",
        "daily": "Daily Papers",
        "feed": "Atom feed",
        "categories": "Categories",
        "taxonomy": "All arXiv categories",
        "on_day": "papers in this day's listing",
        "listings": "announcements stored",
        "no_listings": "nothing stored",
        "alias_of": "alias of",
        "now_filed": "now",
        "other_categories": "Other ids in the store",
        "save": "save",
        "save_interests": "Save",
        "note": "note",
        "save_note": "keep note",
        "mark_read": "mark read",
        "mark_unread": "mark unread",
        "more_like": "more like this",
        "not_for_me": "not for me",
        "papers": "papers",
        "ranked_library": "ranked by your library",
        "ranked_arxiv": "in arXiv order",
        "login_to_rank": "log in to rank by your library",
        "library": "Library",
        "login": "Log in",
        "logout": "log out",
        "name": "Name",
        "password": "Password",
        "imported": "Imported",
        "linked": "linked to arXiv",
        "kept": "kept as they are",
        "skipped": "skipped",
        "all": "all",
        "tag": "tag",
        "add_tag": "add tag",
        "remove": "remove",
        "library_empty": "Nothing saved yet: use ☆ save, + or − on any paper, or import a bibliography.",
        "interests": "Interests",
        "categories_followed": "Categories",
        "authors_followed": "Authors",
        "must": "Must contain one of",
        "never": "Never show papers with",
        "import": "Import",
        "kind_cross": "cross",
        "kind_replace": "replaced",
        "kind_replace-cross": "replaced",
        "mode_hybrid": "hybrid",
        "mode_keyword": "keyword",
        "mode_semantic": "semantic",
        "next_page": "page {n} →",
        "prev_page": "← page {n}",
        "results_range": "results {first}–{last}",
        "no_good_matches": "No good matches: try other words, or an arXiv id.",
        "copy_bibtex": "Copy BibTeX",
        "copied": "Copied",
        "keys_hint": "Keys: j / k next / previous paper, o open it",
        "go_to_day": "Go to day",
        "go": "Go",
        "top": "↑ top",
        "saved": "saved",
        "your_rating": "your rating",
        "untag": "remove tag",
        "rate": "rate",
        "confirm_remove": "Remove this entry from your library?",
        "katex_missing": "Math is shown as LaTeX source: KaTeX is not installed (run `npm install`).",
        "demo_loading": "The demo is still loading earlier days: more papers appear as they are stored.",
        "description_listing": "{category} papers announced on arXiv on {day}, numbered as arXiv lists them.",
        "description_paper": "{title}: abstract, BibTeX and related papers.",
        "description_site": "papersift: arXiv papers sifted: daily listings, search, related papers.",
        "error": "Error",
        "unauthorized": "Log in first",
        "forbidden": "Forbidden",
        "all_modes": "mode",
        "import_formats": "BibTeX · RIS · CSL-JSON (Zotero) · arXiv ids",
        "zotero_sync": "Last Zotero sync",
        "zotero_items": "items read",
        "zotero_matched": "matched to arXiv papers",
        "zotero_kept": "kept with their own text",
        "zotero_removed": "removed",
        "zotero_entries": "entries from Zotero",
        "zotero_arxiv_offline": "arXiv was out of reach: those items keep their own text for now",
    },
    "zh": {
        "title": "papersift",
        "tagline": "arXiv 论文筛选",
        "new": "新论文",
        "cross": "交叉列表",
        "replace": "替换",
        "previous": "前一天",
        "next": "后一天",
        "related": "相关论文",
        "why": "相关原因",
        "search": "搜索",
        "search_placeholder": '关键词、"短语"或 arXiv 编号',
        "related_text": "任意文本的相关论文",
        "related_placeholder": "粘贴摘要……",
        "find": "查找",
        "abstract": "摘要",
        "more": "更多",
        "no_results": "没有结果。",
        "not_found": "未找到",
        "bad_request": "请求有误",
        "category": "分类",
        "all_categories": "全部分类",
        "since": "起始日期",
        "mode": "模式",
        "same_category": "同一分类",
        "last_years": "近五年",
        "any_time": "不限时间",
        "facet": "相似之处",
        "whole_paper": "整篇论文",
        "facet_background": "背景",
        "facet_method": "方法",
        "facet_result": "结果",
        "listing": "列表",
        "language": "English",
        "page": "页",
        "daily": "每日论文",
        "feed": "Atom 订阅",
        "categories": "分类目录",
        "taxonomy": "arXiv 全部分类",
        "on_day": "当天列表中的论文数",
        "listings": "已存公告条目",
        "no_listings": "尚无存储",
        "alias_of": "等同于",
        "now_filed": "现归入",
        "other_categories": "库中的其他分类号",
        "save": "收藏",
        "save_interests": "保存",
        "note": "笔记",
        "save_note": "保存笔记",
        "mark_read": "标为已读",
        "mark_unread": "标为未读",
        "more_like": "多推荐类似的",
        "not_for_me": "不感兴趣",
        "papers": "篇论文",
        "ranked_library": "按你的文库排序",
        "ranked_arxiv": "按 arXiv 顺序",
        "login_to_rank": "登录后按你的文库排序",
        "library": "文库",
        "login": "登录",
        "logout": "退出",
        "name": "用户名",
        "password": "密码",
        "imported": "已导入",
        "linked": "关联到 arXiv",
        "kept": "按原样保留",
        "skipped": "跳过",
        "all": "全部",
        "tag": "标签",
        "add_tag": "添加标签",
        "remove": "移除",
        "library_empty": "还没有收藏：在任意论文上点 ☆ 收藏、+ 或 −，或导入文献库。",
        "interests": "关注",
        "categories_followed": "分类",
        "authors_followed": "作者",
        "must": "必须包含其一",
        "never": "不显示包含以下词的论文",
        "import": "导入",
        "kind_cross": "交叉",
        "kind_replace": "已替换",
        "kind_replace-cross": "已替换",
        "mode_hybrid": "混合",
        "mode_keyword": "关键词",
        "mode_semantic": "语义",
        "next_page": "第 {n} 页 →",
        "prev_page": "← 第 {n} 页",
        "results_range": "第 {first}–{last} 条结果",
        "no_good_matches": "没有好的匹配：请换用其他词语，或输入 arXiv 编号。",
        "copy_bibtex": "复制 BibTeX",
        "copied": "已复制",
        "keys_hint": "快捷键：j / k 下一篇 / 上一篇，o 打开",
        "go_to_day": "跳转到日期",
        "go": "前往",
        "top": "↑ 回到顶部",
        "saved": "已收藏",
        "your_rating": "你的评分",
        "untag": "移除标签",
        "rate": "评分",
        "confirm_remove": "从文库中移除这一条？",
        "katex_missing": "公式以 LaTeX 源码显示：未安装 KaTeX（请运行 `npm install`）。",
        "demo_loading": "演示仍在载入快照中更早的日子：论文存入后即会显示。",
        "description_listing": "{day} arXiv {category} 公告的论文，按 arXiv 的顺序编号。",
        "description_paper": "{title}：摘要、BibTeX 与相关论文。",
        "description_site": "papersift：arXiv 论文筛选，每日列表、搜索与相关论文。",
        "error": "错误",
        "unauthorized": "请先登录",
        "forbidden": "禁止访问",
        "all_modes": "模式",
        "import_formats": "BibTeX · RIS · CSL-JSON（Zotero）· arXiv 编号",
        "zotero_sync": "上次 Zotero 同步",
        "zotero_items": "条已读取",
        "zotero_matched": "条匹配到 arXiv 论文",
        "zotero_kept": "条保留自身文本",
        "zotero_removed": "条已移除",
        "zotero_entries": "条来自 Zotero",
        "zotero_arxiv_offline": "无法连接 arXiv：这些条目暂时保留自身文本",
    },
}


def pick_language(query: str | None, cookie: str | None, accept: str | None) -> str:
    """``?lang=`` first, then the remembered cookie, then the browser's Accept-Language, else English."""
    for choice in (query, cookie):
        if choice in LANGUAGES:
            return choice
    for part in (accept or "").split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("zh"):
            return "zh"
        if tag.startswith("en"):
            return "en"
    return "en"


# What ranking, search and the server say in English (reasons, notes, errors), as 中文: a pattern over the
# English text and its translation (groups keep names, numbers and ids as they are).
_ZH: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (re.compile(r"^same authors: (.*)$"), r"相同作者：\1"),
    (re.compile(r"^shared terms: (.*)$"), r"共同术语：\1"),
    (re.compile(r"^close in content \(([\d.]+)\)$"), r"内容相近（\1）"),
    (re.compile(r"^same category \((.*)\)$"), r"同一分类（\1）"),
    (re.compile(r"^earlier work$"), "更早的工作"),
    (re.compile(r"^(\d+) years? earlier$"), r"早 \1 年"),
    (re.compile(r"^(\d+) months? earlier$"), r"早 \1 个月"),
    (re.compile(r"^(\d+) weeks? earlier$"), r"早 \1 周"),
    (re.compile(r"^(\d+) days? earlier$"), r"早 \1 天"),
    (re.compile(r"^the same day, submitted before$"), "同一天，更早提交"),
    (re.compile(r"^the same month, submitted before$"), "同一个月，更早提交"),
    (re.compile(r"^similar wording \(([\d.]+)\)$"), r"措辞相近（\1）"),
    (re.compile(r"^followed authors: (.*)$"), r"关注的作者：\1"),
    (re.compile(r"^authors in your library: (.*)$"), r"文库中的作者：\1"),
    (re.compile(r"^close to (.*)$"), r"接近文库中的 \1"),
    (re.compile(r"^followed category \((.*)\)$"), r"关注的分类（\1）"),
    (re.compile(r"^cites (\d+) of the same papers$"), r"引用了 \1 篇相同的论文"),
    (re.compile(r"^cited together by (\d+) papers?$"), r"被 \1 篇论文同时引用"),
    (re.compile(r"^cites (\d+) papers? of your library$"), r"引用了你文库中的 \1 篇论文"),
    (re.compile(r"^cited by (\d+) papers? of your library$"), r"被你文库中的 \1 篇论文引用"),
    (
        re.compile(
            r"^text cut to the model's (\d+)-token window for the dense match \(([\d,]+) characters given\); "
            r"key terms use the first ([\d,]+) characters$"
        ),
        r"文本已截断到模型的 \1 个词元窗口用于向量匹配（共 \2 个字符）；关键词取前 \3 个字符",
    ),
    (
        re.compile(r"^no index yet: keyword matches only \(run `papersift embed`\)$"),
        "尚无索引：仅关键词匹配（运行 `papersift embed`）",
    ),
    (
        re.compile(r"^no vectors yet: keyword results only \(run `papersift embed`\)$"),
        "尚无向量：仅关键词结果（运行 `papersift embed`）",
    ),
    (re.compile(r"^an arXiv id: that paper$"), "arXiv 编号：即这篇论文"),
    (re.compile(r"^empty query$"), "查询为空"),
    (re.compile(r"^no good matches$"), "没有好的匹配"),
    (re.compile(r"^no listings for the followed categories yet$"), "关注的分类还没有列表"),
    (re.compile(r"^no listings for (\S+)$"), r"\1 没有列表"),
    (re.compile(r"^all categories$"), "全部分类"),
    (re.compile(r"^no (\S+) listing on (\S+)$"), r"\2 没有 \1 的列表"),
    (re.compile(r"^no listing of (.+) on (\S+)$"), r"\2 没有 \1 的列表"),
    (re.compile(r"^(\S+) is not in the store$"), r"库中没有 \1"),
    (re.compile(r"^(.+) is not in your library$"), r"你的文库中没有 \1"),
    (re.compile(r"^the text is empty$"), "文本为空"),
    (re.compile(r"^mode must be one of (.*)$"), r"模式必须是以下之一：\1"),
    (re.compile(r"^not a date \(YYYY-MM-DD\): (.*)$"), r"不是日期（YYYY-MM-DD）：\1"),
    (re.compile(r"^log in first$"), "请先登录"),
    (
        re.compile(r"^the form is stale or comes from another site: reload the page and retry$"),
        "表单已过期或来自其他网站：请刷新页面后重试",
    ),
    (re.compile(r"^wrong name or password$"), "用户名或密码错误"),
    (
        re.compile(r"^too many failed logins for this name; try again in 15 minutes$"),
        "该用户名登录失败次数过多；请 15 分钟后再试",
    ),
    (re.compile(r"^no such feed$"), "没有这个订阅"),
    (re.compile(r"^unknown action (.*)$"), r"未知操作 \1"),
    (re.compile(r"^the file is over (\d+) MB$"), r"文件超过 \1 MB"),
    (re.compile(r"^not an arXiv id: (.*)$"), r"不是 arXiv 编号：\1"),
    (re.compile(r"^Not Found$"), "未找到"),
    (re.compile(r"^(.+) and (\d+) more$"), r"\1 等另外 \2 人"),
    (re.compile(r"^(\S+) is not on arXiv$"), r"arXiv 上没有 \1"),
    (re.compile(r"^offline: cannot reach (\S+) \((.*)\)$"), r"离线：无法连接 \1（\2）"),
    (re.compile(r"^Method Not Allowed$"), "方法不允许"),
]


def translate(text: str, lang: str) -> str:
    """An English message of ranking, search or the server in ``lang`` (English, and anything without a
    translation, stays as it is)."""
    if lang != "zh":
        return text
    for pattern, replacement in _ZH:
        if pattern.search(text):
            return pattern.sub(replacement, text)
    return text


# the topic map and the lab's signals (web/topic_pages.py)
TEXT["en"].update(
    {
        "topics": "Topics",
        "map_page": "map page",
        "other_topic": "other papers",
        "central_paper": "no term most of its papers share: named by its most central paper",
        "filter_topic": "Show only one topic's papers",
        "days": "days",
        "trending": "Popular in your lab",
        "trending_about": "Saved or rated +1 by this install's readers in the last {days} days (counts only)",
        "trending_empty": "Nothing saved in this period yet.",
        "you_are_counted": "Your saves and +1s are counted here (never with your name).",
        "stop_counting": "Don't count me",
        "you_are_not_counted": "Your saves and +1s are not counted.",
        "start_counting": "Count me",
        "lab_saved": "saved",
        "lab_title": "readers of this install who saved it · rated it +1",
    }
)
TEXT["zh"].update(
    {
        "topics": "主题",
        "map_page": "主题地图",
        "other_topic": "其他论文",
        "central_paper": "没有多数论文共有的词：以最居中的论文命名",
        "filter_topic": "只显示一个主题的论文",
        "days": "天",
        "trending": "实验室热门",
        "trending_about": "本站读者最近 {days} 天收藏或点 +1 的论文（只计数）",
        "trending_empty": "这段时间还没有收藏。",
        "you_are_counted": "你的收藏和 +1 会被计入（从不显示你的名字）。",
        "stop_counting": "不要计入我",
        "you_are_not_counted": "你的收藏和 +1 不被计入。",
        "start_counting": "计入我",
        "lab_saved": "人收藏",
        "lab_title": "本站收藏 · 点 +1 的读者数",
    }
)


# what a model writes about papers (web/reading_pages.py): TL;DRs, 中文 texts, the FAQ, Ask
TEXT["en"].update(
    {
        "tldr": "TL;DR",
        "tldr_extractive": "key sentence of the abstract",
        "tldr_by": "by",
        "tldr_unavailable": "TL;DR unavailable",
        "write_tldr": "Write the TL;DR",
        "original": "原文",
        "translation": "译文",
        "side_by_side": "对照",
        "not_translated": "Not translated yet.",
        "translation_unavailable": "Translation unavailable",
        "faq": "FAQ",
        "faq_unavailable": "FAQ unavailable",
        "faq_write": "Write the FAQ",
        "faq_writing": "Writing…",
        "no_model": "no model is configured for this server",
        "ask": "Ask",
        "ask_placeholder": "a question about this paper…",
        "ask_selected": "Ask about the selected papers",
        "answer_unavailable": "Answer unavailable",
        "written_by": "Written by",
        "understood": "How the query was read",
        "showing_results_for": "Showing results for",
        "search_instead_for": "search instead for",
        "searched_for": "Searched for:",
        "nearest_terms": "Nearest terms:",
        "go_instead": "Go instead to:",
        "fetch_paper": "Fetch it from arXiv",
        "results_total": "{n} results",
        "results_total_more": "{n}+ results",
        "your_tags": "Your tags",
        "your_note": "Your note",
        "colon": ": ",  # after a label (中文 writes a full-width colon, with no space)
        "key_phrases": "Key phrases",
        "in_listing": "Show only these in the listing",
    }
)
TEXT["zh"].update(
    {
        "tldr": "TL;DR",
        "tldr_extractive": "摘要中的关键句",
        "tldr_by": "来自",
        "tldr_unavailable": "TL;DR 暂不可用",
        "write_tldr": "生成 TL;DR 与译文",
        "original": "原文",
        "translation": "译文",
        "side_by_side": "对照",
        "not_translated": "尚未翻译。",
        "translation_unavailable": "译文暂不可用",
        "faq": "常见问题",
        "faq_unavailable": "常见问题暂不可用",
        "faq_write": "生成常见问题",
        "faq_writing": "正在生成…",
        "no_model": "此服务器未配置模型",
        "ask": "提问",
        "ask_placeholder": "关于这篇论文的问题…",
        "ask_selected": "就所选论文提问",
        "answer_unavailable": "回答暂不可用",
        "written_by": "生成自",
        "understood": "查询的理解方式",
        "showing_results_for": "显示的是以下查询的结果：",
        "search_instead_for": "仍然搜索",
        "searched_for": "实际搜索：",
        "nearest_terms": "相近的词：",
        "go_instead": "可以前往：",
        "fetch_paper": "从 arXiv 获取",
        "results_total": "共 {n} 条结果",
        "results_total_more": "{n} 条以上结果",
        "your_tags": "你的标签",
        "your_note": "你的笔记",
        "colon": "：",
        "key_phrases": "关键短语",
        "in_listing": "在列表中只看这些",
    }
)
_ZH += [
    (re.compile(r"^translated: (.*) → (.*)$"), r"已翻译：\1 → \2"),
    (re.compile(r"^corrected: (.*) → (.*)$"), r"已更正拼写：\1 → \2"),
    (re.compile(r"^acronym: (.*) = (.*)$"), r"缩写：\1 = \2"),
    (
        re.compile(r"^not translated: no offline dictionary for (\S+) text$"),
        r"未翻译：没有 \1 文字的离线词典",
    ),
]
# search: what the page says of a query shortened, a category arXiv does not have, a count of papers
# having the words (hybrid), a search of the typed words alone, and the categories to browse
TEXT["en"].update(
    {
        "search_only_for": "Search only for {q}",
        "query_shortened": "Your query was {n} characters long: searched its first {m}.",
        "unknown_category": "{c} is not an arXiv category.",
        "did_you_mean": "Did you mean",
        "all_categories": "all categories",
        "browse_categories": "Browse the categories",
        "results_with_words": "{n} papers have your words",
        "results_with_words_more": "{n}+ papers have your words",
        # a paper's full text (web/paper_pages.py): its references, the store's papers citing it, its code
        "references": "References",
        "references_count": "{n}; {m} in this store",
        "cited_by": "Cited by",
        "cited_by_count": "{n} in this store",
        "code": "Code",
        "own_code": "the paper's own",
        "full_text": "Full text",
        "full_text_from": "read from its {source}: {sections} sections, {words} words",
        "citation_count": "{n} citations (Semantic Scholar, {day})",
        "no_model_title": "With a language model",
        "no_model_adds": "A language model would add here a FAQ of this paper, answers to your "
        "questions about it (each claim marked with its paper), one-sentence TL;DRs and 中文 "
        "translations of titles and abstracts. The TL;DRs shown now are key sentences of the abstracts.",
        "no_model_connect": "To connect one (a local server or a provider's API), run "
        "`papersift llm setup` on the server's machine and restart `papersift serve`.",
        "no_model_link": "Connecting a model",
        "no_model_public": "This server's language model writes only for its owner; the texts it has "
        "made are shown.",
        "not_translated_no_model": "Not translated: no language model is connected (see below).",
        "model_help_steps": "On the machine that runs papersift, `papersift llm setup` finds an "
        "OpenAI-compatible server on this machine (Ollama, llama.cpp, LM Studio, vLLM) or takes a "
        "provider's URL, makes one test call and saves the URL and the model; `papersift llm status` "
        "then shows them. Or set PAPERSIFT_LLM_URL and PAPERSIFT_LLM_MODEL (and PAPERSIFT_LLM_KEY) "
        "before `papersift serve`.",
        "model_help_more": "The README's section “Connecting a model” says more.",
        "model_help_adds": "A language model writes one-sentence TL;DRs, 中文 translations of titles and "
        "abstracts, a FAQ of each paper and answers to questions about papers, each claim marked with its "
        "paper; each text is checked before it is shown (its language, no markup, one sentence for a TL;DR, "
        "the math kept in a translation), and one that fails is shown as a failure with its reason.",
        "below_threshold": "below your threshold ({score}): not pushed or mailed",
        "min_score": "Push and mail only papers scoring at least",
        "min_score_none": "(empty: everything)",
        "show_seen": "show the papers you have seen",
        "hide_seen": "hide the papers you have seen",
        "seen_as": "seen",
        "seen_pushed": "pushed",
        "seen_mailed": "mailed",
        "seen_opened": "opened",
        "seen_read": "read",
        "mark_read": "Read",
        "mark_read_title": "Mark read: it leaves your Daily Papers (key r)",
        "new_since": "New since your last visit ({since}): {days} listing days, {papers} papers",
        "quiet_weekend": "arXiv announces nothing for {weekday} {day}: it lists new papers Monday to Friday. "
        "The next listing is {next_weekday} {next}, announced {announced} US-Eastern.",
        "quiet_holiday": "arXiv announced nothing for {weekday} {day} (a holiday). The next listing is "
        "{next_weekday} {next}, announced {announced} US-Eastern.",
        "quiet_not_yet": "No listing for {weekday} {day} yet: arXiv announces it {announced} US-Eastern.",
        "weekday_0": "Monday",
        "weekday_1": "Tuesday",
        "weekday_2": "Wednesday",
        "weekday_3": "Thursday",
        "weekday_4": "Friday",
        "weekday_5": "Saturday",
        "weekday_6": "Sunday",
    }
)
TEXT["zh"].update(
    {
        "search_only_for": "仅搜索 {q}",
        "query_shortened": "查询长 {n} 个字符，只搜索了前 {m} 个。",
        "unknown_category": "{c} 不是 arXiv 的分类。",
        "did_you_mean": "你是不是要找",
        "all_categories": "全部分类",
        "browse_categories": "浏览分类",
        "results_with_words": "{n} 篇论文含有查询词",
        "results_with_words_more": "{n} 篇以上论文含有查询词",
        "references": "参考文献",
        "references_count": "共 {n} 条；本站收录 {m} 篇",
        "cited_by": "被引用",
        "cited_by_count": "本站 {n} 篇论文引用",
        "code": "代码",
        "own_code": "论文自己的",
        "full_text": "全文",
        "full_text_from": "读自其 {source}：{sections} 节，{words} 词",
        "citation_count": "被引 {n} 次（Semantic Scholar，{day}）",
        "no_model_title": "接入语言模型后",
        "no_model_adds": "接入语言模型后，这里会有这篇论文的常见问题解答、对你的提问的回答"
        "（每条论断标注出处论文）、一句话 TL;DR，以及标题和摘要的中文译文。"
        "现在显示的 TL;DR 是摘要中的关键句。",
        "no_model_connect": "接入方法（本机的模型服务或服务商的 API）：在运行服务器的机器上执行 "
        "`papersift llm setup`，然后重启 `papersift serve`。",
        "no_model_link": "接入模型",
        "no_model_public": "此服务器的语言模型只为其所有者生成内容；已生成的内容照常显示。",
        "not_translated_no_model": "尚未翻译：未接入语言模型（见下方说明）。",
        "model_help_steps": "在运行 papersift 的机器上，`papersift llm setup` 会查找本机的 OpenAI "
        "兼容服务（Ollama、llama.cpp、LM Studio、vLLM），或使用服务商的 URL，试调用一次后保存 URL "
        "和模型；之后 `papersift llm status` 会显示它们。也可以在 `papersift serve` 之前设置 "
        "PAPERSIFT_LLM_URL 和 PAPERSIFT_LLM_MODEL（以及 PAPERSIFT_LLM_KEY）。",
        "model_help_more": "README 的 “Connecting a model” 一节有更多说明。",
        "model_help_adds": "语言模型会生成一句话 TL;DR、标题和摘要的中文译文、每篇论文的常见问题解答，"
        "以及对论文提问的回答（每条论断标注出处论文）；每段文字显示前都会经过检查（语言、不含标记、TL;DR "
        "只有一句、译文保留公式），未通过的会显示为失败并注明原因。",
        "below_threshold": "低于你的阈值（{score}）：不推送、不发邮件",
        "min_score": "只推送和邮寄得分不低于此值的论文",
        "min_score_none": "（留空：全部）",
        "show_seen": "显示已看过的论文",
        "hide_seen": "隐藏已看过的论文",
        "seen_as": "已看过",
        "seen_pushed": "已推送",
        "seen_mailed": "已邮寄",
        "seen_opened": "已打开",
        "seen_read": "已读",
        "mark_read": "已读",
        "mark_read_title": "标为已读：不再出现在每日论文中（快捷键 r）",
        "new_since": "自上次访问（{since}）以来新增：{days} 个公布日，{papers} 篇论文",
        "quiet_weekend": "arXiv 在{weekday} {day} 不公布论文：新论文只在周一至周五列出。"
        "下一次列表是{next_weekday} {next}，于美东时间 {announced} 公布。",
        "quiet_holiday": "arXiv 在{weekday} {day} 没有公布论文（假日）。下一次列表是{next_weekday} {next}，"
        "于美东时间 {announced} 公布。",
        "quiet_not_yet": "{weekday} {day} 的列表尚未收到：arXiv 于美东时间 {announced} 公布。",
        "weekday_0": "周一",
        "weekday_1": "周二",
        "weekday_2": "周三",
        "weekday_3": "周四",
        "weekday_4": "周五",
        "weekday_5": "周六",
        "weekday_6": "周日",
    }
)


def _failed_check(m: re.Match[str]) -> str:
    from papersift.reading.checks import shown_error

    return shown_error(m.group(0), "zh")


_ZH.insert(0, (re.compile(r"^.*\[check \w+\(.*\)\]$"), _failed_check))

# the sections of a paper's full text an answer was written from (reading/sections.py; ask.html)
TEXT["en"]["sections_read"] = "sections read"
TEXT["zh"]["sections_read"] = "读过的章节"
