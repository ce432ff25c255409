# Stub (not upstream): the lines of deepspeed/runtime/constants.py (76-78) the checker reads; the real module imports
# deepspeed.accelerator (torch).
ZERO_ALLOW_UNTESTED_OPTIMIZER_DEFAULT = False
ZERO_FORCE_DS_CPU_OPTIMIZER = "zero_force_ds_cpu_optimizer"
ZERO_FORCE_DS_CPU_OPTIMIZER_DEFAULT = True
