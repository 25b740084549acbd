"""What belongs to one reader: the library, its Zotero sync, digests, pushes, and the JSON shapes every face
shows (above reading: it ranks and reads for a reader)."""
