# Stub (not upstream): deepspeed.utils.logger is all the vendored config classes import from it.
import logging
logger = logging.getLogger("deepspeed")
