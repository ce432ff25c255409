# Stub (not upstream): config.py imports AutoTokenizer for Nanoset data stages, which trainfit's files never write.
class AutoTokenizer:
    pass
