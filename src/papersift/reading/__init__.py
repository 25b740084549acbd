"""Reading a paper: what a language model writes about it (a TL;DR, a 中文 title and abstract, a FAQ, the
answer to a question) and the extractive TL;DR shown when no model is available.

``prompts`` (the versioned prompts, the paper's text fenced as data), ``extractive`` (the abstract's key
result sentence), ``texts`` (made once per paper version, model, prompt version, language and kind, kept in
the store with its failures; Ask), ``shown`` (which stored text a face shows, and its JSON), ``markdown``
(the small safe subset model answers are rendered in).
"""
