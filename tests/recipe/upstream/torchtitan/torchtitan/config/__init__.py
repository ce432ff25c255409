# Stub (not upstream): torchtitan/config/__init__.py imports torch dtypes and config/manager.py (tyro); the checks
# import job_config.py (verbatim) directly.
