# Stub (not upstream): datasets defines xPath as a Path subclass (with URL-aware methods the config never calls).
from pathlib import Path


class xPath(type(Path())):  # noqa: N801
    pass
