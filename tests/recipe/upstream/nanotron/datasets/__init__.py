# Stub (not upstream): the datasets package, for the one class config.py imports from it.
