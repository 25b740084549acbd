"""A reader's library and what comes of it: saved papers (``saved``), the Zotero sync, digests, pushes, and
the JSON shapes every face shows (above reading: it ranks and reads for a reader). Named ``library`` so it
is not taken for ``reading/`` (texts made for reading a paper) or ``cli/accounts_cmd.py`` (accounts)."""
