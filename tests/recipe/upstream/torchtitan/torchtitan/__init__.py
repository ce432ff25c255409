# Stub (not upstream): torchtitan/__init__.py imports torchtitan.components.quantization (torch, torchao); the checks
# need only torchtitan/config/job_config.py, which is verbatim.
