"""Interface text in English and 中文 (paper text is never translated), and how a request picks one."""

from __future__ import annotations

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
        "listing": "Listing",
        "language": "中文",
        "page": "page",
        "daily": "Daily Papers",
        "feed": "Atom feed",
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
        "listing": "列表",
        "language": "English",
        "page": "页",
        "daily": "每日论文",
        "feed": "Atom 订阅",
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
