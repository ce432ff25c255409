# Stub (not upstream): nanotron's package is empty here apart from the config loader and its torch-free imports.
