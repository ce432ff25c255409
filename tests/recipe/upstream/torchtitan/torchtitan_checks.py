# Excerpts of torchtitan v0.2.2 (pytorch/torchtitan @ 73a0e6979, BSD-3-Clause, LICENSE here) that judge a job
# config before any GPU work, lifted out of modules that import torch / tyro. Each function's body is the upstream
# code as written; only the `self` / job_config plumbing around it is replaced by arguments.
from dataclasses import fields, is_dataclass
import math


# torchtitan/config/manager.py ConfigManager._dict_to_dataclass (lines 160-181): the TOML file's tables into
# JobConfig; an unknown key raises.
def dict_to_dataclass(cls, data):
    """Convert dictionary to dataclass, handling nested structures."""
    if not is_dataclass(cls):
        return data

    valid_fields = set(f.name for f in fields(cls))
    if invalid_fields := set(data) - valid_fields:
        raise ValueError(
            f"Invalid field names in {cls} data: {invalid_fields}.\n"
            "Please modify your .toml config file or override these fields from the command line.\n"
            "Run `NGPU=1 ./run_train.sh --help` to read all valid fields."
        )

    result = {}
    for f in fields(cls):
        if f.name in data:
            value = data[f.name]
            if is_dataclass(f.type) and isinstance(value, dict):
                result[f.name] = dict_to_dataclass(f.type, value)
            else:
                result[f.name] = value
    return cls(**result)


# torchtitan/distributed/parallel_dims.py ParallelDims._validate (lines 33-56) and build_mesh's expert mesh
# (efsdp = fsdp * tp // (etp * ep), with fsdp = dp_shard * cp): returns the resolved dp_shard.
def validate_parallel_dims(dp_replicate, dp_shard, cp, tp, pp, ep, etp, world_size):
    for d in (dp_replicate, cp, tp, pp, ep, etp):
        assert d >= 1, "Parallelism degree should be >= 1, except for dp_shard"

    assert dp_shard == -1 or dp_shard >= 1, "dp_shard must -1 or >=1."
    if dp_shard < 0:
        dp_shard = world_size // (dp_replicate * cp * tp * pp)
    assert dp_shard >= 1

    assert dp_replicate * dp_shard * cp * tp * pp == world_size, (
        f"Invalid parallel dims: dp_replicate({dp_replicate}) * dp_shard({dp_shard}) * "
        f"cp({cp}) * tp({tp}) * pp({pp}) != WORLD_SIZE({world_size})"
    )

    if ep > 1:
        assert etp == tp or etp == 1, "Currently we only support ETP=TP or ETP=1"
        fsdp = dp_shard * cp
        assert (fsdp * tp) % (etp * ep) == 0 and fsdp * tp // (etp * ep) >= 1, (
            f"the expert mesh (pp, dp_replicate, efsdp, ep, etp) cannot be unflattened: efsdp = "
            f"{fsdp} * {tp} / ({etp} * {ep})"
        )
    return dp_shard


# torchtitan/train.py Trainer.__init__ (lines 196-215): the batch sizes; returns the gradient accumulation steps.
def gradient_accumulation_steps(global_batch_size, local_batch_size, batch_degree):
    if global_batch_size < 0:
        # This global batch size results in 1 gradient accumulation
        # step.
        global_batch_size = local_batch_size * batch_degree
    assert global_batch_size > 0
    assert (
        global_batch_size % (local_batch_size * batch_degree)
        == 0
    ), (
        f"global batch size must be multiple of local batch size times "
        f"data-parallel degree ({global_batch_size} "
        f"% ({local_batch_size} * {batch_degree}) != 0)"
    )
    steps = global_batch_size // (local_batch_size * batch_degree)
    assert steps > 0
    return steps


# torchtitan/distributed/pipeline_parallel.py pipeline_llm (lines 55-115): the number of virtual stages; a looped
# schedule (Interleaved1F1B, ...) is PipelineScheduleMulti, 1F1B / GPipe PipelineScheduleSingle. The microbatch
# rule is pipeline_parallel_microbatch_size's docstring in job_config.py: local_batch_size / microbatch size.
def pipeline_virtual_stages(num_layers, pp, layers_per_stage, is_single_stage_schedule, input_weight=1, output_weight=1):
    if layers_per_stage is not None:
        num_virtual_stages = math.ceil(
            (num_layers + input_weight + output_weight) / layers_per_stage
        )
        if num_virtual_stages % pp != 0:
            raise ValueError(
                f"Number of virtual stages ({num_virtual_stages}) must be divisible by "
                f"pipeline parallel size ({pp})."
            )
        stages_per_rank = num_virtual_stages // pp
        if is_single_stage_schedule and stages_per_rank != 1:
            raise ValueError(f"Single stage schedule requires exactly 1 stage per rank, but got {stages_per_rank}")
        if not is_single_stage_schedule and stages_per_rank < 2:
            raise ValueError(f"Multi-stage schedule requires at least 2 stages per rank, but got {stages_per_rank}")
    else:
        stages_per_rank = 1 if is_single_stage_schedule else 2
        num_virtual_stages = pp * stages_per_rank
    return num_virtual_stages


# torchtitan/distributed/pipeline_parallel.py generate_llm_fqn_per_model_part (lines 236-343): torchtitan's own split
# of the layers into stages (used when module_fqns_per_model_part is not given); the docstring left out.
def generate_llm_fqn_per_model_part(
    num_stages: int,
    num_layers: int,
    input_weight: int = 1,
    output_weight: int = 1,
) -> list[list[str]]:
    if num_stages < 1:
        raise ValueError("Number of stages must be at least 1")

    if num_stages == 1:
        # Single stage gets everything
        layer_names = [f"layers.{i}" for i in range(num_layers)]
        return [["tok_embeddings"] + layer_names + ["norm", "output"]]

    # Calculate effective layers including weights
    num_effective_layers = num_layers + input_weight + output_weight

    if num_stages > num_effective_layers:
        raise ValueError(
            f"Number of stages ({num_stages}) cannot be greater than effective layers ({num_effective_layers})"
        )

    # Calculate layers per stage (distribute evenly)
    layers_per_stage = num_effective_layers // num_stages
    extra_layers = num_effective_layers % num_stages

    # Feasibility check: Ensure at least 1 layer in each PP stage
    if layers_per_stage == 0:
        raise ValueError(
            f"Configuration would result in empty stages. "
            f"With {num_stages} stages and {num_effective_layers} effective layers "
            f"(num_layers={num_layers} + input_weight={input_weight} + output_weight={output_weight}), "
            f"each stage would get {layers_per_stage} layers on average. "
            f"Reduce num_stages or increase num_layers/weights."
        )

    # Balance check: Ensure weights don't exceed minimum layers per stage
    if input_weight > layers_per_stage:
        raise ValueError(
            f"input_weight ({input_weight}) exceeds minimum layers per stage ({layers_per_stage})."
        )
    if output_weight > layers_per_stage:
        raise ValueError(
            f"output_weight ({output_weight}) exceeds minimum layers per stage ({layers_per_stage})."
        )

    module_names_per_stage = []
    current_layer = 0

    for stage_idx in range(num_stages):
        stage_modules = []

        # Calculate effective layers for this stage
        effective_layers_for_stage = layers_per_stage
        if stage_idx < extra_layers:
            effective_layers_for_stage += 1

        # First stage: handle input modules with weighting
        if stage_idx == 0:
            stage_modules.append("tok_embeddings")
            # Account for input weight in layer distribution
            remaining_layers_for_stage = effective_layers_for_stage - input_weight

            # Add transformer layers
            for _ in range(remaining_layers_for_stage):
                if current_layer < num_layers:
                    stage_modules.append(f"layers.{current_layer}")
                    current_layer += 1

        # Last stage: handle output modules with weighting
        elif stage_idx == num_stages - 1:
            # Account for output weight in layer distribution
            remaining_layers_for_stage = effective_layers_for_stage - output_weight

            # Add transformer layers
            for _ in range(remaining_layers_for_stage):
                if current_layer < num_layers:
                    stage_modules.append(f"layers.{current_layer}")
                    current_layer += 1

            # Add output modules
            stage_modules.extend(["norm", "output"])

        # Middle stages: only transformer layers
        else:
            for _ in range(effective_layers_for_stage):
                if current_layer < num_layers:
                    stage_modules.append(f"layers.{current_layer}")
                    current_layer += 1

        module_names_per_stage.append(stage_modules)

    return module_names_per_stage
