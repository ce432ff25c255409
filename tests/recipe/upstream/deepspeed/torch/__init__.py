# Stub (not upstream), shared by the checkers on sys.path: deepspeed/runtime/config_utils.py imports torch only for
# the type of a serializer's argument, torchtitan's job_config.py for type hints, and nanotron's config loader maps
# its dtype strings to these twelve torch.dtype values (nanotron/config/utils_config.py str_to_dtype).
class dtype:  # noqa: N801
    def __init__(self, name=""):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


for _name in ("float32", "float64", "complex64", "complex128", "float16", "bfloat16", "uint8", "int8", "int16",
              "int32", "int64", "bool"):
    globals()[_name] = dtype(_name)
del _name
