# Stub (not upstream): the two names config.py and lighteval_config.py import from nanotron.logging (a package
# upstream, whose base.py imports torch).
import logging


def get_logger(name=None, log_level=None):
    return logging.getLogger(name)


def human_format(num, billions="B", divide_by_1024=False):
    return str(num)
