# Stub (not upstream): torchtitan/tools/logging.py sets up torchtitan's logger; job_config.py uses it only to log.
import logging

logger = logging.getLogger("torchtitan")
