# Stub (not upstream): deepspeed/runtime/config_utils.py imports torch only for the type of a serializer's argument.
class dtype:  # noqa: N801
    pass
