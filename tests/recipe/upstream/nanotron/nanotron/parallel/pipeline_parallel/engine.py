# Stub (not upstream): the classes of parallel/pipeline_parallel/engine.py that the config loader names
# (cast_str_to_pipeline_engine builds one per pp_engine string); the real module imports torch.
class PipelineEngine:
    def __init__(self):
        self.nb_microbatches = None


class AllForwardAllBackwardPipelineEngine(PipelineEngine):
    pass


class OneForwardOneBackwardPipelineEngine(PipelineEngine):
    pass
