# Stub (not upstream): an empty package for tools/logging.py below.
