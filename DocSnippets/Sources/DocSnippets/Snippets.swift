// The DocC catalogs' Swift snippets are in Generated/, a file per article, written by
// `python3 Scripts/portability/snippets.py` (not committed: the articles are the source).
