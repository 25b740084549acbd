"""Services over the store: harvesting arXiv, loading files, full text and citation counts, readers'
accounts, the demo's papers and the listing's text (below the indexes: they never rank)."""
