"""Records: what a paper, an author name, a category and an announcement day are, and the leaf helpers every
layer shares (stop words, Atom writing). Imports nothing of papersift but ``settings``."""
