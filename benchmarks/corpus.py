"""Deterministic synthetic error records that resemble those of a large ML serving codebase.

``generate(n, seed)`` builds ``n`` record dicts in errdex's record format (see docs/records.md,
"Error records"): messages from about thirty families of templates over realistic
vocabularies, Python excerpts around the ``raise``, and for about three records in four
the prose (meaning, solutions, example fixes, when, related). Hard cases are mixed in on
purpose: templates that differ by one word, templates that share most of their words,
the same template raised at several places (those records state distinct ids) and
templates that are almost all placeholder.

The output depends only on ``(n, seed)``: one ``random.Random(seed)`` drives everything,
no set order or ``hash()`` is involved.
"""

from __future__ import annotations

import bisect
import datetime
import hashlib
import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from errdex.records.model import derive_id, parse_template, short_title

# --- Vocabularies --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Opt:
    """A configuration option: its name, the config object that holds it, its kind."""

    name: str
    cfg: str
    kind: Literal["int", "float", "str", "bool"]
    cli: bool = True
    """Whether users set it on the command line (model-derived values are not)."""

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def human(self) -> str:
        return self.name.replace("_", " ")


def _opts(
    cfg: str, kind: Literal["int", "float", "str", "bool"], names: str, cli: bool = True
) -> list[Opt]:
    return [Opt(name, cfg, kind, cli) for name in names.split()]


OPTIONS: tuple[Opt, ...] = tuple(
    _opts(
        "parallel_config",
        "int",
        "tensor_parallel_size pipeline_parallel_size data_parallel_size data_parallel_size_local "
        "decode_context_parallel_size prefill_context_parallel_size num_redundant_experts "
        "data_parallel_rpc_port eplb_window_size eplb_step_interval",
    )
    + _opts("parallel_config", "int", "world_size data_parallel_rank expert_parallel_size", False)
    + _opts(
        "model_config",
        "int",
        "max_model_len max_logprobs max_seq_len_to_capture seed max_num_mm_tokens",
    )
    + _opts(
        "model_config",
        "int",
        "hidden_size num_attention_heads num_key_value_heads head_dim vocab_size "
        "num_hidden_layers intermediate_size sliding_window num_experts num_experts_per_tok "
        "moe_intermediate_size kv_lora_rank qk_rope_head_dim total_num_kv_heads",
        False,
    )
    + _opts(
        "cache_config",
        "int",
        "block_size num_gpu_blocks_override kv_cache_memory_bytes num_lookahead_slots",
    )
    + _opts("cache_config", "float", "gpu_memory_utilization swap_space cpu_offload_gb")
    + _opts(
        "scheduler_config",
        "int",
        "max_num_seqs max_num_batched_tokens max_num_partial_prefills "
        "max_long_partial_prefills long_prefill_token_threshold num_scheduler_steps",
    )
    + _opts("lora_config", "int", "max_lora_rank max_loras max_cpu_loras lora_extra_vocab_size")
    + _opts(
        "speculative_config",
        "int",
        "num_speculative_tokens speculative_max_model_len draft_tensor_parallel_size "
        "prompt_lookup_max prompt_lookup_min",
    )
    + _opts("compilation_config", "int", "max_capture_size cudagraph_num_of_warmups")
    + _opts("multimodal_config", "float", "mm_processor_cache_gb")
    + _opts(
        "model_config",
        "str",
        "dtype tokenizer_mode load_format quantization runner convert served_model_name "
        "chat_template_content_format",
    )
    + _opts("cache_config", "str", "kv_cache_dtype mamba_ssm_cache_dtype prefix_caching_hash_algo")
    + _opts("parallel_config", "str", "distributed_executor_backend data_parallel_backend")
    + _opts("scheduler_config", "str", "scheduling_policy")
    + _opts("load_config", "str", "download_dir")
    + _opts("structured_outputs_config", "str", "reasoning_parser")
)
INT_OPTS = tuple(o for o in OPTIONS if o.kind == "int")
NUM_OPTS = tuple(o for o in OPTIONS if o.kind in ("int", "float"))
CLI_INT_OPTS = tuple(o for o in INT_OPTS if o.cli)
STR_OPTS = tuple(o for o in OPTIONS if o.kind == "str")
CLI_OPTS = tuple(o for o in OPTIONS if o.cli)
BY_NAME: dict[str, Opt] = {o.name: o for o in OPTIONS}

SHORT = {
    "tensor_parallel_size": ("tp", "tp_size"),
    "pipeline_parallel_size": ("pp", "pp_size"),
    "data_parallel_size": ("dp", "dp_size"),
    "decode_context_parallel_size": ("dcp", "dcp_size"),
    "prefill_context_parallel_size": ("pcp", "pcp_size"),
    "expert_parallel_size": ("ep", "ep_size"),
    "world_size": ("world_size", "world_size"),
}

DIVISORS = [
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "data_parallel_size",
    "decode_context_parallel_size",
    "prefill_context_parallel_size",
    "expert_parallel_size",
    "block_size",
    "num_key_value_heads",
    "world_size",
    "max_num_seqs",
    "num_speculative_tokens",
    "draft_tensor_parallel_size",
]
DIVIDENDS = [
    "num_attention_heads",
    "num_key_value_heads",
    "hidden_size",
    "intermediate_size",
    "vocab_size",
    "num_experts",
    "max_num_batched_tokens",
    "num_hidden_layers",
    "moe_intermediate_size",
    "max_model_len",
    "head_dim",
    "num_gpu_blocks_override",
    "kv_lora_rank",
    "max_num_seqs",
    "total_num_kv_heads",
    "num_redundant_experts",
    "max_capture_size",
    "long_prefill_token_threshold",
]


@dataclass(frozen=True, slots=True)
class Feature:
    name: str
    """As a sentence starts with it: "Prefix caching"."""
    cond: str
    """A Python condition that is true when the feature is on."""
    flag: str | None
    """The CLI flag that turns it on, when there is one."""
    kwarg: str | None = None

    @property
    def lower(self) -> str:
        first = self.name.split()[0]
        if first.isupper() or any(c.isupper() for c in first[1:]) or "." in first:
            return self.name
        return self.name[0].lower() + self.name[1:]


FEATURES: tuple[Feature, ...] = (
    Feature("Prefix caching", "cache_config.enable_prefix_caching", "--enable-prefix-caching"),
    Feature(
        "Chunked prefill", "scheduler_config.enable_chunked_prefill", "--enable-chunked-prefill"
    ),
    Feature("Speculative decoding", "self.speculative_config is not None", "--speculative-config"),
    Feature("LoRA", "self.lora_config is not None", "--enable-lora", "enable_lora"),
    Feature(
        "Pipeline parallelism",
        "parallel_config.pipeline_parallel_size > 1",
        "--pipeline-parallel-size",
        "pipeline_parallel_size",
    ),
    Feature("CUDA graphs", "not model_config.enforce_eager", "--enforce-eager", "enforce_eager"),
    Feature("Sliding window attention", "model_config.get_sliding_window() is not None", None),
    Feature("FP8 KV cache", "cache_config.cache_dtype.startswith('fp8')", "--kv-cache-dtype"),
    Feature(
        "Expert parallelism", "parallel_config.enable_expert_parallel", "--enable-expert-parallel"
    ),
    Feature("Structured outputs", "request.use_structured_output", "--structured-outputs-config"),
    Feature("Prompt embeddings", "model_config.enable_prompt_embeds", "--enable-prompt-embeds"),
    Feature("Sleep mode", "model_config.enable_sleep_mode", "--enable-sleep-mode"),
    Feature("Async scheduling", "scheduler_config.async_scheduling", "--async-scheduling"),
    Feature("Disaggregated prefill", "self.kv_transfer_config is not None", "--kv-transfer-config"),
    Feature("KV cache offloading", "cache_config.kv_offloading_size", "--kv-offloading-size"),
    Feature("Beam search", "sampling_params.use_beam_search", None),
    Feature("Prompt logprobs", "sampling_params.prompt_logprobs is not None", None),
    Feature("Encoder-decoder models", "model_config.is_encoder_decoder", None),
    Feature("Cascade attention", "not model_config.disable_cascade_attn", "--disable-cascade-attn"),
    Feature("torch.compile", "compilation_config.level > 0", "--compilation-config"),
    Feature("Dual batch overlap", "parallel_config.enable_dbo", "--enable-dbo"),
    Feature("Data parallelism", "parallel_config.data_parallel_size > 1", "--data-parallel-size"),
    Feature("Sequence parallelism", "pass_config.enable_sequence_parallelism", None),
    Feature(
        "Decode context parallelism",
        "parallel_config.decode_context_parallel_size > 1",
        "--decode-context-parallel-size",
    ),
    Feature("Multimodal inputs", "model_config.is_multimodal_model", None),
    Feature("Pooling models", "model_config.runner_type == 'pooling'", "--runner"),
    Feature("Mamba layers", "model_config.is_hybrid", None),
    Feature(
        "The hybrid KV cache manager",
        "not scheduler_config.disable_hybrid_kv_cache_manager",
        "--disable-hybrid-kv-cache-manager",
    ),
    Feature("N-gram speculation", "spec_config.method == 'ngram'", "--speculative-config"),
    Feature("EAGLE-3 speculative decoding", "spec_config.method == 'eagle3'", None),
    Feature("MTP speculative decoding", "spec_config.method == 'mtp'", None),
    Feature("Cross-attention", "self.is_cross_attention", None),
    Feature("Chunked local attention", "model_config.attention_chunk_size is not None", None),
    Feature("Custom logits processors", "self.logits_processors", "--logits-processors"),
    Feature("Auto tool choice", "args.enable_auto_tool_choice", "--enable-auto-tool-choice"),
    Feature("Priority scheduling", "scheduler_config.policy == 'priority'", "--scheduling-policy"),
    Feature("Tree attention", "self.tree_attn_bias is not None", None),
    Feature("Attention sinks", "self.sinks is not None", None),
    Feature("MLA", "model_config.use_mla", None),
    Feature("Full CUDA graph capture", "compilation_config.full_cuda_graph", None),
    Feature("Multi-LoRA batching", "lora_config.max_loras > 1", "--max-loras"),
    Feature("CPU offloading", "cache_config.cpu_offload_gb > 0", "--cpu-offload-gb"),
    Feature("Tensorizer loading", "load_config.load_format == 'tensorizer'", "--load-format"),
    Feature("Reasoning outputs", "self.reasoning_parser is not None", "--reasoning-parser"),
    Feature("Multi-token prediction", "model_config.num_nextn_predict_layers > 0", None),
    Feature("Mixed-precision KV cache", "cache_config.mixed_precision", None),
)

PARALLELISMS = (
    ("data", "data_parallel_size > 1"),
    ("pipeline", "pipeline_parallel_size > 1"),
    ("tensor", "tensor_parallel_size > 1"),
    ("expert", "enable_expert_parallel"),
    ("context", "decode_context_parallel_size > 1"),
    ("sequence", "enable_sequence_parallelism"),
)
PLATFORMS = (
    ("CUDA", "current_platform.is_cuda()"),
    ("ROCm", "current_platform.is_rocm()"),
    ("TPU", "current_platform.is_tpu()"),
    ("XPU", "current_platform.is_xpu()"),
    ("CPU", "current_platform.is_cpu()"),
    ("HPU", "current_platform.is_hpu()"),
)

ARCHS: tuple[tuple[str, str], ...] = (
    ("LlamaForCausalLM", "llama"),
    ("MistralForCausalLM", "mistral"),
    ("Qwen2ForCausalLM", "qwen2"),
    ("Qwen3ForCausalLM", "qwen3"),
    ("Qwen3MoeForCausalLM", "qwen3_moe"),
    ("Qwen2VLForConditionalGeneration", "qwen2_vl"),
    ("Qwen2_5_VLForConditionalGeneration", "qwen2_5_vl"),
    ("Qwen2AudioForConditionalGeneration", "qwen2_audio"),
    ("MixtralForCausalLM", "mixtral"),
    ("DeepseekV2ForCausalLM", "deepseek_v2"),
    ("DeepseekV3ForCausalLM", "deepseek_v2"),
    ("Gemma2ForCausalLM", "gemma2"),
    ("Gemma3ForCausalLM", "gemma3"),
    ("Gemma3ForConditionalGeneration", "gemma3_mm"),
    ("Phi3ForCausalLM", "phi3"),
    ("Phi4MMForCausalLM", "phi4mm"),
    ("LlavaForConditionalGeneration", "llava"),
    ("LlavaNextForConditionalGeneration", "llava_next"),
    ("InternVLChatModel", "internvl"),
    ("MiniCPMV", "minicpmv"),
    ("ChatGLMModel", "chatglm"),
    ("BaichuanForCausalLM", "baichuan"),
    ("FalconForCausalLM", "falcon"),
    ("GPT2LMHeadModel", "gpt2"),
    ("GPTNeoXForCausalLM", "gpt_neox"),
    ("OPTForCausalLM", "opt"),
    ("BloomForCausalLM", "bloom"),
    ("Starcoder2ForCausalLM", "starcoder2"),
    ("Mamba2ForCausalLM", "mamba2"),
    ("JambaForCausalLM", "jamba"),
    ("GraniteForCausalLM", "granite"),
    ("GraniteMoeForCausalLM", "granitemoe"),
    ("Olmo2ForCausalLM", "olmo2"),
    ("CohereForCausalLM", "commandr"),
    ("DbrxForCausalLM", "dbrx"),
    ("ExaoneForCausalLM", "exaone"),
    ("Glm4ForCausalLM", "glm4"),
    ("WhisperForConditionalGeneration", "whisper"),
    ("BertModel", "bert"),
    ("RobertaForSequenceClassification", "roberta"),
    ("PixtralForConditionalGeneration", "pixtral"),
    ("Idefics3ForConditionalGeneration", "idefics3"),
    ("PaliGemmaForConditionalGeneration", "paligemma"),
    ("MolmoForCausalLM", "molmo"),
    ("NemotronHForCausalLM", "nemotron_h"),
    ("MiniMaxText01ForCausalLM", "minimax_text_01"),
    ("Ernie4_5_MoeForCausalLM", "ernie45_moe"),
    ("HunYuanMoEV1ForCausalLM", "hunyuan_v1"),
    ("KimiVLForConditionalGeneration", "kimi_vl"),
    ("GptOssForCausalLM", "gpt_oss"),
)
ARCH_NAMES = tuple(a for a, _ in ARCHS)

INTERFACES = (
    ("SupportsPP", "Pipeline parallelism", "is_pp_supported_model"),
    ("SupportsLoRA", "LoRA", "supports_lora"),
    ("SupportsMultiModal", "Multimodal input", "supports_multimodal"),
    ("SupportsQuant", "Quantization", "supports_quant"),
    ("SupportsTranscription", "Transcription", "supports_transcription"),
    ("SupportsEagle3", "EAGLE-3 speculative decoding", "supports_eagle3"),
    ("SupportsMRoPE", "M-RoPE position handling", "uses_mrope"),
    ("HasInnerState", "Stateful decoding", "has_inner_state"),
    ("IsHybrid", "The hybrid KV cache", "is_hybrid"),
    ("SupportsCrossEncoding", "Cross-encoder scoring", "supports_cross_encoding"),
    ("SupportsScoreTemplate", "Score templates", "supports_score_template"),
    ("SupportsMultiModalPruning", "Multimodal token pruning", "supports_mm_pruning"),
    ("IsAttentionFree", "Attention-free execution", "is_attention_free"),
    ("SupportsV0Only", "The V0 engine", "supports_v0_only"),
)

ATTN_BACKENDS = [
    "FLASH_ATTN",
    "FLASHINFER",
    "TRITON_ATTN",
    "FLEX_ATTENTION",
    "TORCH_SDPA",
    "XFORMERS",
    "ROCM_ATTN",
    "ROCM_AITER_FA",
    "ROCM_AITER_MLA",
    "FLASHMLA",
    "CUTLASS_MLA",
    "TRITON_MLA",
    "FLASH_ATTN_MLA",
    "TREE_ATTN",
    "PALLAS",
    "CPU_ATTN",
    "IPEX",
]
EXECUTORS = ("mp", "ray", "uni", "external_launcher")
DTYPES = [
    "float16",
    "bfloat16",
    "float32",
    "half",
    "float",
    "auto",
    "fp8",
    "fp8_e4m3",
    "fp8_e5m2",
    "int8",
    "uint8",
    "torch.float16",
    "torch.bfloat16",
    "torch.float32",
]
QUANTS = [
    "awq",
    "gptq",
    "fp8",
    "bitsandbytes",
    "gguf",
    "compressed-tensors",
    "awq_marlin",
    "gptq_marlin",
    "modelopt",
    "modelopt_fp4",
    "marlin",
    "experts_int8",
    "mxfp4",
    "tpu_int8",
    "fbgemm_fp8",
    "torchao",
    "quark",
    "moe_wna16",
    "hqq",
    "ipex",
    "inc",
    "bitblas",
    "gptq_bitblas",
    "petit_nvfp4",
]
MODELS = (
    "meta-llama/Llama-3.1-8B-Instruct",
    "meta-llama/Llama-3.3-70B-Instruct",
    "Qwen/Qwen2.5-7B-Instruct",
    "Qwen/Qwen3-30B-A3B",
    "Qwen/Qwen2.5-VL-7B-Instruct",
    "mistralai/Mistral-7B-Instruct-v0.3",
    "mistralai/Mixtral-8x7B-Instruct-v0.1",
    "deepseek-ai/DeepSeek-V3",
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
    "google/gemma-3-27b-it",
    "microsoft/Phi-3-mini-4k-instruct",
    "openai/gpt-oss-20b",
    "ibm-granite/granite-3.3-8b-instruct",
    "allenai/OLMo-2-1124-7B",
    "TheBloke/Llama-2-13B-chat-AWQ",
    "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8",
    "BAAI/bge-m3",
    "intfloat/e5-mistral-7b-instruct",
    "openai/whisper-large-v3",
    "llava-hf/llava-1.5-7b-hf",
)
ENV_VARS = [
    "VLLM_ATTENTION_BACKEND",
    "VLLM_USE_V1",
    "VLLM_WORKER_MULTIPROC_METHOD",
    "VLLM_HOST_IP",
    "VLLM_PORT",
    "VLLM_LOGGING_LEVEL",
    "VLLM_CACHE_ROOT",
    "VLLM_ENGINE_ITERATION_TIMEOUT_S",
    "VLLM_USE_MODELSCOPE",
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN",
    "VLLM_TARGET_DEVICE",
    "VLLM_RPC_TIMEOUT",
    "VLLM_FUSED_MOE_CHUNK_SIZE",
    "VLLM_USE_DEEP_GEMM",
    "VLLM_ALL2ALL_BACKEND",
    "VLLM_ENABLE_V1_MULTIPROCESSING",
    "VLLM_SLEEP_WHEN_IDLE",
    "VLLM_KV_CACHE_LAYOUT",
    "VLLM_MM_INPUT_CACHE_GIB",
]
MODALITIES = ("image", "video", "audio", "image_embeds", "vision_chunk")
KINDS = (
    ("attention backend", "backend", "AttentionBackendEnum"),
    ("quantization method", "quantization", "QUANTIZATION_METHODS"),
    ("load format", "load_format", "LoadFormats"),
    ("tokenizer mode", "tokenizer_mode", "TOKENIZER_MODES"),
    ("distributed executor backend", "distributed_executor_backend", "EXECUTOR_BACKENDS"),
    ("task", "task", "SUPPORTED_TASKS"),
    ("pooling type", "pooling_type", "PoolingType"),
    ("scheduling policy", "policy", "SCHEDULING_POLICIES"),
    ("reasoning parser", "reasoning_parser", "ReasoningParserManager.reasoning_parsers"),
    ("tool parser", "tool_parser", "ToolParserManager.tool_parsers"),
    ("chat template content format", "content_format", "CHAT_TEMPLATE_FORMATS"),
    ("KV connector", "connector_name", "KVConnectorFactory._registry"),
    ("speculative method", "method", "SPEC_METHODS"),
    ("all2all backend", "all2all_backend", "ALL2ALL_BACKENDS"),
    ("guided decoding backend", "guided_backend", "GUIDED_BACKENDS"),
    ("prefix caching hash algorithm", "hash_algo", "HASH_ALGOS"),
    ("LoRA resolver", "resolver_name", "LoRAResolverRegistry.resolvers"),
    ("runner type", "runner", "RUNNER_TYPES"),
    ("convert type", "convert", "CONVERT_TYPES"),
    ("data parallel backend", "data_parallel_backend", "DP_BACKENDS"),
    ("KV cache layout", "layout", "KV_CACHE_LAYOUTS"),
    ("MoE kernel", "kernel", "MOE_KERNELS"),
    ("sampler", "sampler_name", "SAMPLERS"),
    ("model impl", "model_impl", "MODEL_IMPLS"),
    ("logits processor", "processor", "BUILTIN_LOGITS_PROCESSORS"),
)
THINGS = (
    ("config file", "config.json"),
    ("tokenizer", "tokenizer.json"),
    ("model weights", "*.safetensors"),
    ("chat template", "chat_template.jinja"),
    ("LoRA adapter config", "adapter_config.json"),
    ("preprocessor config", "preprocessor_config.json"),
    ("generation config", "generation_config.json"),
    ("safetensors index", "model.safetensors.index.json"),
    ("speculator config", "speculator_config.json"),
    ("tensorizer artifact", "model.tensors"),
    ("GGUF file", "model.gguf"),
    ("quantization config", "quantize_config.json"),
    ("sharded state checkpoint", "model-rank-0-part-0.safetensors"),
    ("tokenizer model", "tokenizer.model"),
    ("draft model", "config.json"),
    ("processor config", "processor_config.json"),
    ("MoE tuning config", "E=64,N=1280,device_name=NVIDIA_H100.json"),
    ("dataset file", "sharegpt.json"),
    ("expert placement file", "expert_map.json"),
    ("KV cache scales", "kv_cache_scales.json"),
)
COMMENTS = (
    "TODO: remove this check once the kernels support it.",
    "Keep in sync with the check in the worker.",
    "The engine core validates this again after the model is loaded.",
    "This happens when the user passes the value on the command line.",
    "Defaults are resolved above, so these are the final values.",
    "NOTE: V1 does not support this combination yet.",
    "We only warn here; the hard check happens below.",
    "Checked before any memory is allocated.",
    "Mirrors the logic in the HF config parser.",
    "See https://github.com/vllm-project/vllm/issues for the discussion.",
    "The platform may override this later.",
    "Some models store this in the text config only.",
)
LOG_LINES = (
    "%s is experimental and may change without notice.",
    "Falling back to %s; this may be slower.",
    "Overriding %s with the value from the model config.",
    "%s is not set; using the default.",
    "Using %s for this model.",
    "%s was deprecated and will be removed in a future release.",
)


@dataclass(frozen=True, slots=True)
class RepoSpec:
    name: str
    weight: int
    product: str
    cli: str
    env_prefix: str
    module_prefix: str
    paths: tuple[str, ...] = ()
    """Source files; vllm's are chosen per area instead."""
    custom: tuple[str, ...] = ()
    """Dotted custom exception types this repository raises."""


REPOS: tuple[RepoSpec, ...] = (
    RepoSpec(
        "vllm-project/vllm",
        80,
        "vLLM",
        "vllm serve",
        "VLLM",
        "vllm",
        custom=(
            "vllm.v1.engine.exceptions.EngineDeadError",
            "vllm.v1.engine.exceptions.EngineGenerateError",
            "vllm.multimodal.processing.PromptUpdateError",
            "vllm.lora.utils.LoRAAdapterError",
            "vllm.model_executor.model_loader.weight_utils.WeightLoadError",
            "vllm.distributed.kv_transfer.kv_connector.v1.base.KVConnectorError",
        ),
    ),
    RepoSpec(
        "sgl-project/sglang",
        6,
        "SGLang",
        "python -m sglang.launch_server --model-path",
        "SGLANG",
        "sglang",
        tuple(
            "python/sglang/srt/" + p + ".py"
            for p in [
                "server_args",
                "model_executor/model_runner",
                "managers/scheduler",
                "managers/tokenizer_manager",
                "layers/attention/flashinfer_backend",
                "layers/quantization/fp8",
                "lora/lora_manager",
                "speculative/eagle_worker",
                "models/llama",
                "models/qwen2",
                "models/deepseek_v2",
                "configs/model_config",
                "mem_cache/memory_pool",
                "distributed/parallel_state",
                "entrypoints/http_server",
                "entrypoints/engine",
                "multimodal/processors/base_processor",
                "constrained/xgrammar_backend",
            ]
        ),
        ("sglang.srt.managers.scheduler.SchedulerError",),
    ),
    RepoSpec(
        "huggingface/text-generation-inference",
        5,
        "TGI",
        "text-generation-launcher --model-id",
        "TGI",
        "text_generation_server",
        tuple(
            "server/text_generation_server/" + p + ".py"
            for p in [
                "models/__init__",
                "models/flash_causal_lm",
                "models/custom_modeling/flash_llama_modeling",
                "models/custom_modeling/flash_mistral_modeling",
                "utils/weights",
                "utils/quantization",
                "layers/attention/cuda",
                "layers/lora",
                "utils/adapter",
                "server",
                "utils/tokens",
                "layers/gptq/__init__",
                "models/vlm_causal_lm",
                "utils/import_utils",
            ]
        ),
        ("text_generation_server.utils.import_utils.CUDAError",),
    ),
    RepoSpec(
        "NVIDIA/TensorRT-LLM",
        5,
        "TensorRT-LLM",
        "trtllm-serve",
        "TLLM",
        "tensorrt_llm",
        tuple(
            "tensorrt_llm/" + p + ".py"
            for p in [
                "llmapi/llm_args",
                "llmapi/llm",
                "_torch/pyexecutor/py_executor",
                "_torch/pyexecutor/model_engine",
                "_torch/models/modeling_llama",
                "_torch/attention_backend/trtllm",
                "quantization/mode",
                "mapping",
                "builder",
                "runtime/generation",
                "_torch/speculative/eagle3",
                "lora_manager",
                "serve/openai_server",
            ]
        ),
        ("tensorrt_llm.executor.utils.RequestError",),
    ),
    RepoSpec(
        "LMCache/LMCache",
        4,
        "LMCache",
        "vllm serve",
        "LMCACHE",
        "lmcache",
        tuple(
            "lmcache/" + p + ".py"
            for p in [
                "v1/cache_engine",
                "v1/config",
                "v1/storage_backend/local_cpu_backend",
                "v1/gpu_connector",
                "integration/vllm/vllm_v1_adapter",
                "v1/memory_management",
                "config",
                "utils",
                "v1/storage_backend/remote_backend",
                "v1/lookup_client/lmcache_lookup_client",
            ]
        ),
        ("lmcache.v1.exceptions.LMCacheConfigError",),
    ),
)

VLLM_AREAS: dict[str, tuple[str, ...]] = {
    "config": (
        *tuple(
            "vllm/config/" + p + ".py"
            for p in [
                "parallel",
                "model",
                "cache",
                "scheduler",
                "lora",
                "speculative",
                "compilation",
                "multimodal",
                "load",
                "structured_outputs",
                "kv_transfer",
                "device",
                "pooler",
                "__init__",
            ]
        ),
        "vllm/engine/arg_utils.py",
    ),
    "model": (
        *tuple(f"vllm/model_executor/models/{f}.py" for _, f in ARCHS),
        "vllm/model_executor/models/registry.py",
        "vllm/model_executor/models/interfaces.py",
        "vllm/model_executor/models/utils.py",
    ),
    "attention": (
        "vllm/attention/selector.py",
        "vllm/attention/layer.py",
        *(
            f"vllm/v1/attention/backends/{f}.py"
            for f in [
                "flash_attn",
                "flashinfer",
                "triton_attn",
                "flex_attention",
                "mla/common",
                "tree_attn",
                "rocm_aiter_fa",
                "xformers",
                "cpu_attn",
                "utils",
            ]
        ),
    ),
    "lora": (
        *tuple(
            f"vllm/lora/{f}.py"
            for f in [
                "models",
                "worker_manager",
                "request",
                "utils",
                "peft_helper",
                "layers/base_linear",
            ]
        ),
        "vllm/lora/punica_wrapper/punica_gpu.py",
    ),
    "spec": (
        *tuple(
            f"vllm/v1/spec_decode/{f}.py" for f in ["eagle", "ngram_proposer", "medusa", "metadata"]
        ),
        "vllm/config/speculative.py",
    ),
    "engine": tuple(
        f"vllm/v1/engine/{f}.py"
        for f in [
            "core",
            "core_client",
            "llm_engine",
            "async_llm",
            "processor",
            "output_processor",
            "utils",
        ]
    ),
    "entrypoints": tuple(
        f"vllm/entrypoints/{f}.py"
        for f in ["llm", "utils", "chat_utils", "score_utils", "renderer"]
    )
    + tuple(
        f"vllm/entrypoints/openai/{f}.py"
        for f in [
            "serving_chat",
            "serving_completion",
            "serving_engine",
            "api_server",
            "protocol",
            "serving_embedding",
            "serving_responses",
            "cli_args",
        ]
    ),
    "multimodal": tuple(
        f"vllm/multimodal/{f}.py"
        for f in [
            "processing",
            "inputs",
            "parse",
            "registry",
            "utils",
            "image",
            "video",
            "audio",
            "profiling",
        ]
    ),
    "quant": tuple(
        f"vllm/model_executor/layers/quantization/{f}.py"
        for f in [
            "fp8",
            "awq",
            "gptq",
            "awq_marlin",
            "gptq_marlin",
            "bitsandbytes",
            "gguf",
            "modelopt",
            "mxfp4",
            "base_config",
            "__init__",
            "compressed_tensors/compressed_tensors",
        ]
    ),
    "distributed": (
        "vllm/distributed/parallel_state.py",
        "vllm/distributed/utils.py",
        "vllm/distributed/communication_op.py",
        "vllm/distributed/device_communicators/pynccl.py",
        "vllm/distributed/device_communicators/custom_all_reduce.py",
        "vllm/distributed/device_communicators/cuda_communicator.py",
        "vllm/distributed/kv_transfer/kv_connector/factory.py",
        "vllm/distributed/eplb/eplb_state.py",
    ),
    "worker": tuple(
        f"vllm/v1/worker/{f}.py"
        for f in [
            "gpu_model_runner",
            "gpu_worker",
            "cpu_model_runner",
            "tpu_model_runner",
            "worker_base",
            "gpu_input_batch",
            "block_table",
            "utils",
        ]
    )
    + tuple(f"vllm/v1/core/{f}.py" for f in ["kv_cache_utils", "kv_cache_manager", "block_pool"])
    + ("vllm/v1/core/sched/scheduler.py",),
    "platform": tuple(
        f"vllm/platforms/{f}.py"
        for f in ["cuda", "rocm", "tpu", "xpu", "cpu", "interface", "__init__"]
    ),
    "tokenizer": (
        *tuple(
            f"vllm/transformers_utils/{f}.py"
            for f in ["tokenizer", "config", "processor", "tokenizer_group", "detokenizer_utils"]
        ),
        "vllm/transformers_utils/tokenizers/mistral.py",
    ),
    "loader": tuple(
        f"vllm/model_executor/model_loader/{f}.py"
        for f in [
            "default_loader",
            "weight_utils",
            "utils",
            "bitsandbytes_loader",
            "gguf_loader",
            "tensorizer",
            "sharded_state_loader",
            "runai_streamer_loader",
        ]
    ),
    "sampling": (
        "vllm/sampling_params.py",
        "vllm/v1/sample/sampler.py",
        "vllm/v1/sample/logits_processor/builtin.py",
        "vllm/v1/sample/rejection_sampler.py",
        "vllm/v1/structured_output/__init__.py",
        "vllm/v1/structured_output/backend_xgrammar.py",
        "vllm/v1/structured_output/request.py",
    ),
}
METHODS: dict[str, tuple[str, ...]] = {
    "config": (
        "__post_init__",
        "_verify_args",
        "verify_with_parallel_config",
        "_verify_cuda_graph",
        "_verify_quantization",
        "create_engine_config",
        "_check_compatibility",
        "validate",
        "_set_default_args",
    ),
    "model": ("__init__", "load_weights", "forward", "_validate_inputs", "compute_logits"),
    "attention": ("__init__", "forward", "build", "validate_configuration", "get_attn_backend"),
    "lora": ("add_adapter", "_load_adapter", "activate_adapter", "from_local_checkpoint"),
    "spec": ("__init__", "propose", "load_model", "prepare_inputs"),
    "engine": ("__init__", "add_request", "_validate_params", "run_engine_core", "step"),
    "entrypoints": ("create_chat_completion", "_validate_request", "generate", "score"),
    "multimodal": ("apply", "_validate_mm_items", "parse_mm_data", "get_max_tokens_per_item"),
    "quant": ("from_config", "get_quant_method", "create_weights", "get_min_capability"),
    "distributed": ("init_distributed_environment", "initialize_model_parallel", "__init__"),
    "worker": ("initialize_kv_cache", "_dummy_run", "determine_available_memory", "load_model"),
    "platform": ("check_and_update_config", "get_attn_backend_cls", "verify_quantization"),
    "tokenizer": ("get_tokenizer", "get_config", "apply_chat_template", "decode"),
    "loader": ("load_weights", "download_model", "_prepare_weights", "load_model"),
    "sampling": ("_verify_args", "__post_init__", "apply", "compile_grammar"),
}
AREAS = tuple(VLLM_AREAS)

_ACRONYMS = {
    "gpu": "GPU",
    "cpu": "CPU",
    "tpu": "TPU",
    "xpu": "XPU",
    "llm": "LLM",
    "lora": "LoRA",
    "mla": "MLA",
    "kv": "KV",
    "eplb": "EPLB",
    "awq": "AWQ",
    "gptq": "GPTQ",
    "gguf": "GGUF",
    "mm": "MM",
    "attn": "Attention",
    "pynccl": "PyNccl",
}


def _class_for(path: str) -> str | None:
    """A plausible class for a source file, or None for module-level functions."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    if stem in ("utils", "__init__", "selector", "api_server", "registry", "factory"):
        return None
    for arch, file in ARCHS:
        if path.endswith(f"/models/{file}.py"):
            return arch
    name = "".join(_ACRONYMS.get(p, p.capitalize()) for p in stem.split("_"))
    if "/config/" in path:
        return name + "Config"
    if "/backends/" in path:
        return name + "Impl"
    return name


# --- Drafts: what a message family produces -----------------------------------------

SLOT = "\x00"
"""Where the swapped word goes in a family with one-word siblings."""
SLOT_COND = "\x01"


@dataclass(slots=True)
class Invented:
    family: str
    area: str
    exception: str
    message: str
    cond: str
    setup: list[str] = field(default_factory=list)
    meaning: list[str] = field(default_factory=list)
    solutions: list[str] = field(default_factory=list)
    trigger: str = ""
    situations: str = ""
    flags: list[tuple[str, str]] = field(default_factory=list)
    kwargs: list[tuple[str, str]] = field(default_factory=list)
    swap: list[tuple[str, str]] = field(default_factory=list)
    """One-word alternatives for SLOT, each with its condition token for SLOT_COND."""
    fmt_args: list[str] | None = None
    """When set, the message is a ``str.format`` template with positional ``{}``."""
    names: list[str] = field(default_factory=list)
    """Option names the filler code around the raise may mention."""

    def with_slot(self, word: str, token: str) -> Invented:
        def sub(text: str) -> str:
            return text.replace(SLOT, word).replace(SLOT_COND, token)

        return Invented(
            self.family,
            self.area,
            self.exception,
            sub(self.message),
            sub(self.cond),
            [sub(s) for s in self.setup],
            [sub(s) for s in self.meaning],
            [sub(s) for s in self.solutions],
            sub(self.trigger),
            sub(self.situations),
            list(self.flags),
            list(self.kwargs),
            [],
            self.fmt_args,
            list(self.names),
        )


def _ident(feat: Feature) -> str:
    """A feature's first word as part of a Python name."""
    return feat.lower.split()[0].lower().replace("-", "_").replace(".", "_")


def _expr(rng: random.Random, opt: Opt, setup: list[str], short: bool = False) -> str:
    """A source expression for an option's value, adding a local assignment when needed."""
    r = rng.random()
    local = SHORT[opt.name][0] if short and opt.name in SHORT else opt.name
    if r < 0.45:
        line = (
            f"{local} = {opt.cfg}.{opt.name}"
            if rng.random() < 0.6
            else f"{local} = self.{opt.name}"
        )
        if line not in setup:
            setup.append(line)
        return local
    if r < 0.8:
        return f"self.{opt.name}"
    return f"{opt.cfg}.{opt.name}"


def _val(opt: Opt, rng: random.Random) -> str:
    if opt.kind == "float":
        return rng.choice(("0.85", "0.9", "0.95", "4", "8"))
    if opt.kind == "int":
        return rng.choice(("1", "2", "4", "8", "16", "2048", "4096", "8192", "32768"))
    return rng.choice(("auto", "bfloat16", "fp8", "mp"))


Family = Callable[[random.Random, RepoSpec], Invented]


def fam_divisible(rng: random.Random, repo: RepoSpec) -> Invented:
    a_name, b_name = rng.choice(DIVIDENDS), rng.choice(DIVISORS)
    while b_name == a_name:
        b_name = rng.choice(DIVISORS)
    a, b = BY_NAME[a_name], BY_NAME[b_name]
    setup: list[str] = []
    x, y = _expr(rng, a, setup), _expr(rng, b, setup, short=True)
    la = SHORT.get(a.name, (a.name, a.name))[1] if rng.random() < 0.5 else a.name
    lb = SHORT.get(b.name, (b.name, b.name))[1] if rng.random() < 0.5 else b.name
    form = rng.randrange(7)
    if form == 0:
        msg = f"{la}={{{x}}} must be divisible by {lb}={{{y}}}."
    elif form == 1:
        msg = f"{a.human.capitalize()} ({{{x}}}) must be divisible by {b.human} ({{{y}}})."
    elif form == 2:
        msg = f"Total number of {a.human} ({{{x}}}) must be divisible by {b.human} ({{{y}}})."
    elif form == 3:
        msg = f"`{la}` ({{{x}}}) is not divisible by `{lb}` ({{{y}}})."
    elif form == 4:
        msg = f"{la} must be a multiple of {lb}, but got {la}={{{x}}} and {lb}={{{y}}}."
    elif form == 5:
        msg = (
            f"The {a.human} ({{{x}}}) is not evenly divisible by the {b.human} ({{{y}}}); "
            f"each rank would get a fractional share."
        )
    else:
        msg = f"{a.human.capitalize()} {{{x}}} should be divisible by {lb} {{{y}}}."
    fix = b.flag if b.cli else a.flag
    return Invented(
        "divisible",
        "config" if rng.random() < 0.7 else rng.choice(("model", "distributed", "worker")),
        "ValueError" if rng.random() < 0.85 else "AssertionError",
        msg,
        f"{x} % {y} != 0",
        setup,
        [
            f"{repo.product} splits `{a.name}` evenly across `{b.name}`, so the first value must "
            f"be an exact multiple of the second.",
            f"With the values in the message the division leaves a remainder, and some ranks "
            f"would get a fractional share of the {a.human}.",
        ],
        [
            f"Choose `{fix}` so that it divides `{a.name}` exactly (read the real value from the "
            f"model's `config.json`).",
            f"Keep `{b.name}` a power of two: {a.human} values are almost always multiples of 8.",
            "Use a model variant whose shape matches the parallel layout you need.",
        ],
        f"`{a.name}` modulo `{b.name}` is not zero when the configuration is verified.",
        f"Moving a working command to a machine with a different GPU count (e.g. 6 GPUs), "
        f"or copying `{fix}` from a guide written for another model.",
        [(fix, rng.choice(("2", "4", "8")))],
        [(fix.lstrip("-").replace("-", "_"), rng.choice(("2", "4", "8")))],
        names=[a.name, b.name],
    )


def fam_exceeds(rng: random.Random, repo: RepoSpec) -> Invented:
    a = rng.choice(CLI_INT_OPTS)
    b = rng.choice(CLI_INT_OPTS)
    while b == a:
        b = rng.choice(CLI_INT_OPTS)
    setup: list[str] = []
    va = _expr(rng, a, setup)
    limit = rng.choice(("max_" + a.name.removeprefix("max_"), f"{a.name}_limit", "upper_bound"))
    vb = _expr(rng, b, setup)
    tail = rng.choice(
        (
            f"for `{b.flag}` ({{{vb}}}).",
            (
                f"for `{b.flag}` ({{{vb}}}) and {{{rng.choice(DIVIDENDS)}}} model "
                f"{rng.choice(('KV heads', 'layers', 'experts', 'attention heads'))}."
            ),
            f"when `{b.flag}` is {{{vb}}}.",
            f"on this platform with `{b.flag}` ({{{vb}}}).",
            f"given {b.human} {{{vb}}}.",
        )
    )
    form = rng.randrange(3)
    if form == 0:
        msg = f"`{a.flag}` ({{{va}}}) exceeds the maximum supported value ({{{limit}}}) {tail}"
    elif form == 1:
        msg = f"{a.name}={{{va}}} is larger than the supported maximum {{{limit}}} {tail}"
    else:
        msg = f"Requested {a.human} ({{{va}}}) is above the limit ({{{limit}}}) {tail}"
    setup.append(f"{limit} = {vb} // {rng.choice(('2', 'total_num_kv_heads', 'self.block_size'))}")
    return Invented(
        "exceeds",
        rng.choice(("config", "config", "worker", "spec", "lora")),
        "ValueError",
        msg,
        f"{va} > {limit}",
        setup,
        [
            f"The largest `{a.name}` {repo.product} accepts depends on `{b.name}`; the limit "
            f"shown in the message was computed from your other settings.",
            "A value above it would leave some ranks or buffers without work to do, so the "
            "configuration is rejected up front.",
        ],
        [
            f"Lower `{a.flag}` to the maximum printed in the message.",
            f"Raise `{b.flag}` if you need the larger `{a.name}`.",
        ],
        f"`{a.name}` is greater than the limit derived from `{b.name}`.",
        f"Tuning `{a.flag}` for throughput without adjusting `{b.flag}`.",
        [(a.flag, "2"), (b.flag, "8")],
        [(a.name, "2"), (b.name, "8")],
        names=[a.name, b.name],
    )


def fam_not_yet(rng: random.Random, repo: RepoSpec) -> Invented:
    f1 = rng.choice(FEATURES)
    if rng.random() < 0.45:
        verb = rng.choice(
            (
                "does not support {} yet.",
                "is not supported with {} yet.",
                "is not compatible with {} yet.",
                "cannot be combined with {} yet.",
            )
        )
        msg = f"{f1.name} {verb.format(SLOT + ' parallelism')}"
        cond = f"{f1.cond} and parallel_config.{SLOT_COND}"
        words = list(PARALLELISMS)
        rng.shuffle(words)
        swap = words
        other = f"{SLOT} parallelism"
        other_flag = None
    else:
        f2 = rng.choice(FEATURES)
        while f2 == f1:
            f2 = rng.choice(FEATURES)
        verb = rng.choice(
            (
                "does not support {} yet.",
                "is not supported with {} yet.",
                "is not yet compatible with {}.",
                "cannot be used together with {} yet.",
                "and {} cannot be enabled at the same time yet.",
                "is not supported in combination with {} for now.",
            )
        )
        msg = f"{f1.name} {verb.format(f2.lower)}"
        cond = f"{f1.cond} and {f2.cond}"
        swap = []
        other = f2.lower
        other_flag = f2.flag
    exc = "NotImplementedError" if rng.random() < 0.4 else "ValueError"
    sols = [
        f"Disable {other} (or run without {f1.lower}); the two cannot run in one engine yet.",
        f"Check the release notes of the latest {repo.product}: support for combining "
        f"{f1.lower} with {other} may have landed.",
    ]
    if f1.flag:
        sols.insert(1, f"Remove `{f1.flag}` from the command if you can live without it.")
    flags = [(f1.flag, "")] if f1.flag and f1.flag.startswith("--enable") else []
    if other_flag and other_flag.startswith("--enable"):
        flags = [(other_flag, "")]
    return Invented(
        "not_yet",
        rng.choice(("config", "config", "engine", "worker", "attention", "spec")),
        exc,
        msg,
        cond,
        [],
        [
            f"{f1.name} and {other} are each supported on their own, but the code paths were "
            f"never made to work together, so {repo.product} refuses the combination instead of "
            f"producing wrong results.",
            "The word *yet* means it is a known gap, not a misconfiguration of your machine.",
        ],
        sols,
        f"Both {f1.lower} and {other} are enabled when the engine configuration is validated.",
        f"Turning on {other} for a larger deployment while keeping a command line that "
        f"already used {f1.lower}.",
        flags,
        [],
        swap,
    )


def fam_interface(rng: random.Random, repo: RepoSpec) -> Invented:
    iface, feat, check = rng.choice(INTERFACES)
    arch = rng.choice(ARCH_NAMES)
    form = rng.randrange(5)
    if form == 0:
        msg = (
            f"{feat} is not supported for this model. Supported models implement the `{iface}` "
            "interface."
        )
    elif form == 1:
        msg = (
            f"{feat} is not supported for {arch}. Supported models implement the `{iface}` "
            "interface."
        )
    elif form == 2:
        msg = (
            f"{arch} does not implement `{iface}`, which is required for "
            f"{feat[0].lower() + feat[1:]}."
        )
    elif form == 3:
        msg = f"{feat} requires a model that implements `{iface}`; {arch} does not."
    else:
        msg = (
            "Model "
            f"{{{rng.choice(('model_cls.__name__', 'self.model_config.architecture', 'arch'))}}} "
            f"does not support {feat[0].lower() + feat[1:]}: it does not implement `{iface}`."
        )
    return Invented(
        "interface",
        rng.choice(("model", "config", "model")),
        "NotImplementedError" if rng.random() < 0.6 else "ValueError",
        msg,
        f"not {check}(model_cls)" if rng.random() < 0.5 else f"not isinstance(model, {iface})",
        ["model_cls, _ = get_model_architecture(self.model_config)"],
        [
            f"{feat} needs hooks that a model class provides by implementing the `{iface}` "
            f"protocol in `vllm/model_executor/models/interfaces.py`.",
            f"The model you loaded (or `{arch}` in particular) does not implement it, so "
            f"{repo.product} cannot enable {feat[0].lower() + feat[1:]} for it.",
        ],
        [
            f"Turn {feat[0].lower() + feat[1:]} off for this model.",
            f"Use an architecture from the supported-models list that implements `{iface}`.",
            f"Implement `{iface}` in the model class yourself and open a pull request.",
        ],
        f"The model class is checked against `{iface}` while the engine is configured.",
        f"Trying {feat[0].lower() + feat[1:]} on a new or less common architecture.",
        [("--pipeline-parallel-size", "1")] if iface == "SupportsPP" else [],
        [],
    )


def fam_unknown(rng: random.Random, repo: RepoSpec) -> Invented:
    kind, var, registry = rng.choice(KINDS)
    name = rng.choice((var, f"self.{var}", f"{var}!r", "name"))
    choices = rng.choice(
        (f"list({registry})", f"sorted({registry})", "available", f"', '.join({registry})")
    )
    head = rng.choice(("Unknown", "Unsupported", "Unrecognized", "Invalid"))
    tail = rng.choice(
        ("Available:", "Supported:", "Choose from", "Valid options are", "Expected one of")
    )
    quote = rng.choice(("`{}`", "'{}'", "{}"))
    form = rng.randrange(3)
    shown = quote.format("{" + name + "}")
    if form == 0:
        msg = f"{head} {kind} {shown}. {tail} {{{choices}}}"
    elif form == 1:
        msg = f"{head} {kind}: {shown}. {tail} {{{choices}}}."
    else:
        msg = f"{kind[0].upper() + kind[1:]} {shown} is not registered. {tail} {{{choices}}}"
    return Invented(
        "unknown",
        rng.choice(AREAS),
        "ValueError" if rng.random() < 0.7 else "KeyError",
        msg,
        f"{var} not in {registry}",
        [f"{var} = {var}.lower()" if rng.random() < 0.3 else f"{var} = self.{var}"],
        [
            f"The {kind} you asked for is not one {repo.product} knows: names are looked up in "
            f"`{registry}`, and the message lists every name that was registered at the time.",
            "Names are case-sensitive and a plugin that registers more names must be imported "
            "before the engine starts.",
        ],
        [
            f"Pick one of the names printed after *{tail.rstrip(':')}*.",
            "Check for a typo or a name from a newer release than the one installed "
            f"(`pip show {repo.module_prefix}`).",
            "If the name comes from a plugin, make sure the plugin package is installed in the "
            "same environment.",
        ],
        f"The {kind} name is not a key of `{registry}`.",
        "Copying a command from documentation for a different version.",
        [],
        [],
    )


def fam_archs(rng: random.Random, repo: RepoSpec) -> Invented:
    archs = rng.choice(
        ("architectures", "archs", "self.architectures", "model_config.architectures")
    )
    form = rng.randrange(6)
    plat = rng.choice(PLATFORMS)[0]
    if form == 0:
        msg = f"Model architectures {{{archs}}} are not supported for now."
    elif form == 1:
        msg = (
            f"Model architectures {{{archs}}} failed to be inspected. Please check the logs for "
            "more details."
        )
    elif form == 2:
        msg = f"Model architectures {{{archs}}} are not supported on {plat} for now."
    elif form == 3:
        msg = (
            f"None of the model architectures {{{archs}}} is supported by the "
            f"{{{rng.choice(('runner_type', 'convert_type', 'task'))}}} runner."
        )
    elif form == 4:
        msg = (
            f"Model architectures {{{archs}}} are partially supported by {repo.product}; "
            f"{{{rng.choice(('reason', 'detail'))}}}"
        )
    else:
        msg = (
            f"Cannot resolve model class for architectures {{{archs}}} with "
            f"model_impl={{{rng.choice(('model_impl', 'self.model_impl'))}}}."
        )
    return Invented(
        "archs",
        "model",
        "ValueError",
        msg,
        "not any(arch in self.models for arch in architectures)",
        [
            "architectures = model_config.architectures",
            "normalized = self._normalize_archs(architectures)",
        ],
        [
            f"The `architectures` field of the model's `config.json` names classes "
            f"{repo.product} has no implementation for (or none that works in this setting).",
            "The check happens before any weights are downloaded.",
        ],
        [
            "Check the supported-models list for the architecture name in `config.json`.",
            "Try `--model-impl transformers` to run the model through the Transformers backend.",
            f"Upgrade {repo.product}: new architectures are added in most releases.",
        ],
        "No registered model class matches the `architectures` list of the checkpoint.",
        "Loading a brand-new model, a custom fine-tune with a renamed class, or a checkpoint "
        "that needs `trust_remote_code`.",
        [("--model-impl", "transformers"), ("--trust-remote-code", "")],
        [("model_impl", '"transformers"'), ("trust_remote_code", "True")],
    )


_FIND_HINTS = (
    "Is the path mounted in the container?",
    "Did the download finish?",
    "Check `--download-dir`.",
    "Pass a local directory or a Hugging Face repo id.",
    "Set HF_HUB_OFFLINE=0 to download it.",
    "The directory may be incomplete.",
)
_CHOICE_HINTS = (
    "Check the value passed on the command line.",
    "See `--help` for details.",
    "This option is case-sensitive.",
    "Use `auto` to let the engine decide.",
    "The value may come from a config file.",
)


def fam_cannot_find(rng: random.Random, repo: RepoSpec) -> Invented:
    thing, file = rng.choice(THINGS)
    path = rng.choice(
        (
            "path",
            "model_path",
            "self.model",
            "local_dir",
            "os.path.join(path, name)",
            "lora_path",
            "config_path",
        )
    )
    form = rng.randrange(5)
    if form == 0:
        msg = f"Cannot find {thing} at {{{path}}}."
    elif form == 1:
        msg = f"Could not find {thing} ({file}) in {{{path}}}."
    elif form == 2:
        msg = f"No {thing} found at {{{path}}}. Make sure the path exists and contains {file}."
    elif form == 3:
        msg = f"{thing[0].upper() + thing[1:]} not found: {{{path}}} does not contain `{file}`."
    else:
        msg = (
            f"Failed to locate the {thing} for "
            f"{{{rng.choice(('model', 'self.model', 'model_name_or_path'))}}} under {{{path}}}."
        )
    if rng.random() < 0.5:
        msg += " " + rng.choice(_FIND_HINTS)
    return Invented(
        "cannot_find",
        rng.choice(("loader", "tokenizer", "lora", "config")),
        rng.choice(("ValueError", "FileNotFoundError", "OSError", "RuntimeError")),
        msg,
        (
            "not "
            f"os.path.exists(os.path.join({path.split('(')[0] if '(' not in path else 'path'}, "
            f"{file!r}))"
        ),
        [],
        [
            f"{repo.product} looked for the {thing} (`{file}`) in the path shown and it was not "
            f"there.",
            "Local paths are used as-is; Hugging Face ids are downloaded into the cache first, so "
            "a partial download can also cause this.",
        ],
        [
            "Check the path for typos and that it is readable by the user running the server.",
            f"Download the full repository again (`huggingface-cli download MODEL_ID --local-dir "
            f"LOCAL_DIR`) so that `{file}` is present.",
            "Inside containers, mount the directory at the same path you pass on the command line.",
        ],
        f"The {thing} file is missing from the directory being loaded.",
        "Pointing at a folder that only holds weights, or at a model whose download was cut short.",
        [],
        [],
    )


EXPECT_SUBJECTS = (
    "prompt_token_ids",
    "the number of images",
    "hidden_states",
    "the chat template",
    "each tool call",
    "the LoRA rank",
    "`logit_bias` keys",
    "`stop` sequences",
    "the sampling seed",
    "`response_format`",
    "the KV cache spec",
    "the output of the pooler",
    "the draft model's vocab size",
    "`mm_processor_kwargs`",
    "the attention metadata",
    "`guided_json`",
    "the weight scale",
    "each request id",
    "the block table",
    "`priority`",
    "the input positions",
    "`lora_request`",
    "the expert map",
    "the router logits",
    "`max_tokens`",
    "the quantization config",
    "`allowed_token_ids`",
    "the embedding dimension",
    "`truncate_prompt_tokens`",
    "`bad_words`",
)
EXPECT_TYPES = (
    "a list of ints",
    "a string",
    "a 2D tensor",
    "a dict",
    "a positive integer",
    "non-negative",
    "contiguous",
    "on the same device as the model",
    "a JSON schema",
    "a valid UTF-8 string",
    "sorted",
    "a torch.Tensor",
    "an int or None",
    "of length 1",
    "a list of strings",
    "a mapping like {{'type': 'json_schema'}}",
)


def fam_expected(rng: random.Random, repo: RepoSpec) -> Invented:
    subj, typ = rng.choice(EXPECT_SUBJECTS), rng.choice(EXPECT_TYPES)
    got = rng.choice(
        ("type(x)", "type(value).__name__", "got", "value", "x.shape", "len(x)", "value!r")
    )
    form = rng.randrange(4)
    if form == 0:
        msg = f"Expected {subj} to be {typ}, got {{{got}}}."
    elif form == 1:
        msg = f"Expected {subj} to be {typ}, but got {{{got}}} instead."
    elif form == 2:
        msg = f"{subj[0].upper() + subj[1:]} must be {typ}; got {{{got}}}."
    else:
        msg = (
            f"Expected {subj} to be {typ} when {rng.choice(FEATURES).lower} is enabled, got "
            f"{{{got}}}."
        )
    holder = rng.choice(("request", "params", "inputs", "self"))
    exc = (
        "TypeError"
        if "type" in got or "a " in typ[:2]
        else rng.choice(("ValueError", "AssertionError"))
    )
    return Invented(
        "expected",
        rng.choice(("entrypoints", "sampling", "multimodal", "worker", "engine", "lora")),
        exc,
        msg,
        "not isinstance(x, list)" if exc == "TypeError" else "not ok",
        [f"x = {holder}.{rng.choice(('value', 'data', 'field'))}"],
        [
            f"{repo.product} checks that {subj} is {typ} before using it; the value it received "
            f"was something else (shown after *got*).",
            "This usually points at the caller: a request body or Python argument of the wrong "
            "shape, not at the model.",
        ],
        [
            f"Pass {subj} as {typ}.",
            "If you build the request in code, print the value right before sending it.",
            "Compare your request with the example in the API reference for this endpoint.",
        ],
        f"A type or shape check on {subj} fails.",
        "Client libraries that serialize values differently (e.g. strings instead of numbers).",
        [],
        [],
    )


def fam_invalid_choice(rng: random.Random, repo: RepoSpec) -> Invented:
    opt = rng.choice(STR_OPTS)
    setup: list[str] = []
    v = _expr(rng, opt, setup)
    ch = rng.choice(
        (
            "choices",
            "list(CHOICES)",
            "valid",
            f"get_args({opt.name.title().replace('_', '')})",
            "sorted(allowed)",
        )
    )
    form = rng.randrange(5)
    if form == 0:
        msg = f"Invalid value {{{v}}} for {opt.name}; expected one of {{{ch}}}."
    elif form == 1:
        msg = f"Invalid value {{{v}!r}} for `{opt.flag}`. Expected one of {{{ch}}}."
    elif form == 2:
        msg = f"`{opt.name}` must be one of {{{ch}}}, got {{{v}}}."
    elif form == 3:
        msg = f"Unsupported {opt.human}: {{{v}}}. Supported values: {{{ch}}}."
    else:
        msg = f"{opt.human.capitalize()} {{{v}}} is invalid for this model; use one of {{{ch}}}."
    if rng.random() < 0.5:
        msg += " " + rng.choice(_CHOICE_HINTS)
    return Invented(
        "invalid_choice",
        "config",
        "ValueError",
        msg,
        f"{v} not in {ch.split('(')[-1].rstrip(')')}",
        setup,
        [
            f"`{opt.name}` only accepts a fixed set of values and the one given is not among them.",
            "The list in the message is the authoritative set for the installed version.",
        ],
        [
            f"Set `{opt.flag}` to one of the listed values.",
            "Remove the option to fall back to the default (`auto` where available).",
        ],
        f"The value of `{opt.name}` is not in its list of choices.",
        "Old scripts using a value that was renamed or removed.",
        [(opt.flag, "auto")],
        [(opt.name, '"auto"')],
        names=[opt.name],
    )


def fam_requires(rng: random.Random, repo: RepoSpec) -> Invented:
    """Messages without placeholders: two features that depend on or exclude each other."""
    f1, f2 = rng.choice(FEATURES), rng.choice(FEATURES)
    while f2 == f1:
        f2 = rng.choice(FEATURES)
    form = rng.randrange(8)
    plat = rng.choice(PLATFORMS)
    if form == 0:
        msg = f"{f1.name} requires {f2.lower} to be enabled."
    elif form == 1:
        msg = f"{f1.name} and {f2.lower} cannot be enabled at the same time."
    elif form == 2:
        msg = f"{f1.name} is only supported on {plat[0]} when {f2.lower} is disabled."
    elif form == 3:
        msg = f"Cannot use {f1.lower} together with {f2.lower}. Disable one of them."
    elif form == 4:
        msg = f"{f1.name} is not supported when {f2.lower} is enabled; please disable {f2.lower}."
    elif form == 5:
        msg = f"{f1.name} must be disabled to use {f2.lower}."
    elif form == 6:
        msg = (
            f"Enabling {f1.lower} implicitly enables {f2.lower}, which is not supported for this "
            "model."
        )
    else:
        msg = f"{f1.name} with {f2.lower} is only implemented for the V1 engine on {plat[0]}."
    return Invented(
        "requires",
        rng.choice(("config", "engine", "worker", "attention")),
        rng.choice(("ValueError", "ValueError", "NotImplementedError", "RuntimeError")),
        msg,
        f"{f1.cond} and not {f2.cond}" if form in (0, 5) else f"{f1.cond} and {f2.cond}",
        [],
        [
            f"{f1.name} and {f2.lower} interact: the message states the only combination "
            f"{repo.product} implements.",
            "The engine checks this once at startup, after reading both the command line and "
            "the model's config, so a default turned on by the model counts too.",
        ],
        [
            f"Adjust {f2.lower} as the message says" + (f" (`{f2.flag}`)." if f2.flag else "."),
            f"Or turn off {f1.lower}" + (f" by removing `{f1.flag}`." if f1.flag else "."),
        ],
        f"{f1.name} is on and {f2.lower} is in the state the message rules out.",
        "Combining optimisations from separate tuning guides.",
        [(f2.flag, "")] if f2.flag and f2.flag.startswith("--") and "enable" in f2.flag else [],
        [],
    )


def fam_range(rng: random.Random, repo: RepoSpec) -> Invented:
    opt = rng.choice(NUM_OPTS)
    setup: list[str] = []
    v = _expr(rng, opt, setup)
    form = rng.randrange(7)
    if opt.kind == "float" and form < 3:
        msg = rng.choice(
            (
                f"{opt.name} must be between 0 and 1, got {{{v}}}.",
                f"`{opt.flag}` must be in (0, 1], got {{{v}}}.",
                f"{opt.human.capitalize()} must be a fraction in the range (0, 1], but is {{{v}}}.",
            )
        )
        cond = f"not 0 < {v} <= 1"
    elif form == 0:
        msg = (
            f"{opt.name} must be in the range [{{{rng.choice(('lo', 'min_value', '1'))}}}, "
            f"{{{rng.choice(('hi', 'max_value', 'limit'))}}}], got {{{v}}}."
        )
        cond = f"not lo <= {v} <= hi"
    elif form == 1:
        msg = f"{opt.name} must be a positive integer, got {{{v}}}."
        cond = f"{v} <= 0"
    elif form == 2:
        msg = (
            f"`{opt.flag}` must be at least "
            f"{{{rng.choice(('min_' + opt.name, 'minimum', 'self.block_size'))}}}, got {{{v}}}."
        )
        cond = f"{v} < minimum"
    elif form == 3:
        msg = f"{opt.human.capitalize()} ({{{v}}}) must be a power of two."
        cond = f"{v} & ({v} - 1) != 0"
    elif form == 4:
        msg = f"{opt.name} should be greater than or equal to 0, but got {{{v}}}."
        cond = f"{v} < 0"
    elif form == 5:
        msg = (
            f"Invalid {opt.name}={{{v}}}: it must be non-negative and no larger than "
            f"{{{rng.choice(('max_' + opt.name, 'upper', 'self.max_model_len'))}}}."
        )
        cond = f"{v} < 0 or {v} > upper"
    else:
        msg = (
            f"{opt.human.capitalize()} must be > 0 when {rng.choice(FEATURES).lower} is enabled, "
            f"got {{{v}}}."
        )
        cond = f"{v} <= 0"
    return Invented(
        "range",
        rng.choice(("config", "sampling", "spec", "lora")),
        "ValueError",
        msg,
        cond,
        setup,
        [
            f"`{opt.name}` is outside the range {repo.product} accepts. The bound is a hard "
            f"limit of the implementation, not a tuning suggestion.",
            "The value shown is the one after defaults were applied.",
        ],
        [
            f"Set `{opt.flag}` to a value inside the range in the message.",
            "If you did not set it yourself, look for a config file or environment variable "
            "that does.",
        ],
        f"Argument validation finds `{opt.name}` out of range.",
        "Typos such as an extra zero, or a value given in the wrong unit.",
        [(opt.flag, _val(opt, rng))],
        [(opt.name, _val(opt, rng))],
        names=[opt.name],
    )


_PAIRS = (
    ("max_num_batched_tokens", "max_model_len"),
    ("max_num_seqs", "max_num_batched_tokens"),
    ("max_model_len", "max_seq_len_to_capture"),
    ("speculative_max_model_len", "max_model_len"),
    ("max_loras", "max_cpu_loras"),
    ("max_lora_rank", "max_loras"),
    ("prompt_lookup_min", "prompt_lookup_max"),
    ("num_speculative_tokens", "max_num_seqs"),
    ("data_parallel_size_local", "data_parallel_size"),
    ("long_prefill_token_threshold", "max_model_len"),
    ("max_long_partial_prefills", "max_num_partial_prefills"),
    ("cpu_offload_gb", "swap_space"),
    ("num_lookahead_slots", "block_size"),
    ("max_capture_size", "max_num_seqs"),
    ("draft_tensor_parallel_size", "tensor_parallel_size"),
    ("num_redundant_experts", "num_experts"),
    ("eplb_step_interval", "eplb_window_size"),
    ("block_size", "max_model_len"),
    ("max_num_mm_tokens", "max_num_batched_tokens"),
    ("kv_cache_memory_bytes", "num_gpu_blocks_override"),
)


def fam_compare(rng: random.Random, repo: RepoSpec) -> Invented:
    an, bn = rng.choice(_PAIRS)
    if rng.random() < 0.3:
        an, bn = bn, an
    a, b = BY_NAME[an], BY_NAME[bn]
    setup: list[str] = []
    x, y = _expr(rng, a, setup), _expr(rng, b, setup)
    form = rng.randrange(6)
    swap: list[tuple[str, str]] = []
    if form == 0:
        msg = (
            f"{a.name} ({{{x}}}) is greater than {b.name} ({{{y}}}). This effectively limits the "
            f"maximum sequence length to {a.name} and makes {repo.product} reject longer "
            f"sequences. Please increase {a.name} or decrease {b.name}."
        )
        cond = f"{x} > {y}"
    elif form == 1:
        msg = f"{a.name} ({{{x}}}) must be {SLOT} than or equal to {b.name} ({{{y}}})."
        cond = f"{x} {SLOT_COND} {y}"
        swap = [("less", ">"), ("greater", "<")]
        rng.shuffle(swap)
    elif form == 2:
        msg = f"`{a.flag}` ({{{x}}}) cannot exceed `{b.flag}` ({{{y}}})."
        cond = f"{x} > {y}"
    elif form == 3:
        msg = (
            f"{a.name}={{{x}}} is smaller than {b.name}={{{y}}}, which is not allowed when "
            f"{rng.choice(FEATURES).lower} is enabled."
        )
        cond = f"{x} < {y}"
    elif form == 4:
        msg = f"Got {a.human} {{{x}}} > {b.human} {{{y}}}; lower {a.flag} or raise {b.flag}."
        cond = f"{x} > {y}"
    else:
        msg = f"The {a.human} ({{{x}}}) must not be larger than the {b.human} ({{{y}}})."
        cond = f"{x} > {y}"
    return Invented(
        "compare",
        rng.choice(("config", "config", "worker", "lora", "spec")),
        "ValueError",
        msg,
        cond,
        setup,
        [
            f"`{a.name}` and `{b.name}` bound each other: the scheduler assumes one never "
            f"exceeds the other when it sizes batches and buffers.",
            "The pair of values in the message violates that ordering.",
        ],
        [
            f"Lower `{a.flag}` or raise `{b.flag}` so that the ordering holds.",
            "Leave both unset to let the engine pick consistent defaults.",
        ],
        f"`{a.name}` and `{b.name}` are compared during config validation.",
        f"Setting `{a.flag}` high for throughput while `{b.flag}` stays at its default.",
        [(a.flag, "8192"), (b.flag, "8192")],
        [(a.name, "8192"), (b.name, "8192")],
        swap,
        names=[a.name, b.name],
    )


def fam_dtype(rng: random.Random, repo: RepoSpec) -> Invented:
    feat = rng.choice(FEATURES)
    form = rng.randrange(5)
    swap: list[tuple[str, str]] = []
    if form == 0:
        msg = (
            f"{feat.name} is not supported with dtype "
            f"{{{rng.choice(('dtype', 'self.dtype', 'model_config.dtype'))}}}. Supported dtypes: "
            f"{{{rng.choice(('supported_dtypes', 'SUPPORTED_DTYPES', 'self.supported_dtypes'))}}}."
        )
        cond = "dtype not in supported_dtypes"
    elif form == 1:
        q = rng.choice(QUANTS)
        msg = (
            f"Quantization method {q} does not support "
            f"{{{rng.choice(('dtype', 'params_dtype'))}}}; use one of "
            f"{{{rng.choice(('supported', 'cls.get_supported_act_dtypes()'))}}}."
        )
        cond = "params_dtype not in supported"
    elif form == 2:
        msg = f"{feat.name} does not support the {SLOT} KV cache dtype."
        cond = f"cache_config.cache_dtype == '{SLOT_COND}'"
        swap = [(d, d) for d in ("fp8", "fp8_e5m2", "fp8_e4m3", "int8", "fp8_ds_mla")]
        rng.shuffle(swap)
    elif form == 3:
        backend = rng.choice(ATTN_BACKENDS)
        msg = (
            f"The {backend} backend only supports "
            f"{rng.choice(('float16 and bfloat16', 'bfloat16', 'float16, bfloat16 and float32'))}, "
            f"got {{{rng.choice(('dtype', 'query.dtype'))}}}."
        )
        cond = "dtype not in (torch.float16, torch.bfloat16)"
    else:
        msg = (
            f"{feat.name} with {SLOT} weights is not supported on this GPU (compute capability "
            f"{{{rng.choice(('capability', 'cc', 'current_platform.get_device_capability()'))}}})."
        )
        cond = f"weight_dtype == '{SLOT_COND}' and capability < 89"
        swap = [(d, d) for d in ("FP8", "FP4", "INT4", "INT8", "MXFP4", "NVFP4")]
        rng.shuffle(swap)
    return Invented(
        "dtype",
        rng.choice(("quant", "attention", "config", "platform")),
        rng.choice(("ValueError", "NotImplementedError", "ValueError")),
        msg,
        cond,
        ["dtype = model_config.dtype"],
        [
            f"The data type in use is not one the kernels behind {feat.lower} implement.",
            "The dtype comes from `--dtype`, or from the checkpoint when `--dtype auto` is used.",
        ],
        [
            "Pass `--dtype bfloat16` (or `float16` on GPUs without bfloat16 support).",
            f"Turn off {feat.lower} if you must keep this dtype.",
            "For quantized checkpoints, use the dtype the checkpoint was calibrated in.",
        ],
        "The resolved dtype is not in the list the backend supports.",
        "Older GPUs (compute capability below 8.0) or checkpoints saved in float32.",
        [("--dtype", "bfloat16")],
        [("dtype", '"bfloat16"')],
        swap,
    )


def fam_backend(rng: random.Random, repo: RepoSpec) -> Invented:
    be = rng.choice(ATTN_BACKENDS)
    feat = rng.choice(FEATURES)
    form = rng.randrange(5)
    if form == 0:
        msg = f"{be} attention backend does not support {feat.lower}."
    elif form == 1:
        msg = (
            f"Selected backend {{{rng.choice(('backend', 'selected_backend', 'backend.name'))}}} "
            "is not valid for this configuration. Reason: "
            f"{{{rng.choice(('reason', 'invalid_reasons', 'why'))}}}"
        )
    elif form == 2:
        msg = (
            f"{be} requires head size to be one of "
            f"{{{rng.choice(('supported_head_sizes', 'cls.get_supported_head_sizes()'))}}}, got "
            f"{{{rng.choice(('head_size', 'self.head_size'))}}}."
        )
    elif form == 3:
        msg = (
            f"{be} does not support block size "
            f"{{{rng.choice(('block_size', 'kv_cache_spec.block_size'))}}}; use a multiple of "
            f"{{{rng.choice(('alignment', '16', 'cls.block_alignment'))}}}."
        )
    else:
        msg = (
            f"{be} is not available on {rng.choice(PLATFORMS)[0]}: "
            f"{{{rng.choice(('e', 'err', 'import_error'))}}}"
        )
    return Invented(
        "backend",
        "attention",
        rng.choice(("ValueError", "NotImplementedError", "RuntimeError")),
        msg,
        f"not backend.supports_{_ident(feat)}()",
        ["backend = get_attn_backend(head_size, dtype, kv_cache_dtype, block_size)"],
        [
            f"The attention backend that was selected ({be} or the one named in the message) "
            f"cannot run this configuration.",
            f"{repo.product} picks a backend automatically unless `VLLM_ATTENTION_BACKEND` or "
            f"`--attention-backend` forces one.",
        ],
        [
            "Unset `VLLM_ATTENTION_BACKEND` and let the engine choose.",
            "Force a backend that supports the feature, e.g. `--attention-backend FLASHINFER`.",
            f"Disable {feat.lower}.",
        ],
        "Backend selection checks the backend's capabilities against the model and cache.",
        "An environment variable left over from a benchmark forcing one backend.",
        [("--attention-backend", "FLASHINFER")],
        [],
    )


def fam_memory(rng: random.Random, repo: RepoSpec) -> Invented:
    form = rng.randrange(5)
    n = rng.choice(("max_model_len", "self.max_model_len", "num_tokens", "estimated_max_len"))
    if form == 0:
        msg = (
            f"Not enough KV cache memory to hold {{{n}}} tokens "
            f"({{{rng.choice(('needed_gib', 'needed_memory / GiB_bytes:.2f'))}}} GiB needed, "
            f"{{{rng.choice(('available_gib', 'available_memory / GiB_bytes:.2f'))}}} GiB "
            "available). Try increasing `gpu_memory_utilization` or decreasing "
            "`max_model_len`."
        )
    elif form == 1:
        msg = (
            f"The model's max seq len ({{{n}}}) is larger than the maximum number of tokens that "
            f"can be stored in KV cache ({{{rng.choice(('max_tokens', 'estimated_max_len'))}}}). "
            "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
            "initializing the engine."
        )
    elif form == 2:
        pick16 = rng.choice(("gpu_memory_utilization", "self.cache_config.gpu_memory_utilization"))
        msg = (
            "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
            "when initializing the engine (got "
            f"{{{pick16}}})."
        )
    elif form == 3:
        pick15 = rng.choice(
            (
                "CUDA graph capture",
                "the sampler warmup",
                "the encoder cache",
                "the LoRA buffers",
                "the draft model",
            )
        )
        msg = (
            "Insufficient memory for "
            f"{pick15}: "
            f"{{{rng.choice(('required', 'needed_bytes'))}}} bytes requested but only "
            f"{{{rng.choice(('free', 'free_bytes'))}}} bytes are free."
        )
    else:
        pick14 = rng.choice(("gpu_memory_utilization", "self.cache_config.gpu_memory_utilization"))
        free = rng.choice(("free_gpu_memory", "init_snapshot.free_memory"))
        total = rng.choice(("total_gpu_memory", "init_snapshot.total_memory"))
        msg = (
            "Free memory on device "
            f"({{{free}}}/{{{total}}} "
            "GiB) on startup is less than desired GPU memory utilization "
            f"({{{pick14}}}, "
            f"{{{rng.choice(('requested_memory', 'requested'))}}} GiB). Decrease GPU memory "
            "utilization or reduce GPU memory used by other processes."
        )
    return Invented(
        "memory",
        rng.choice(("worker", "worker", "engine")),
        rng.choice(("ValueError", "RuntimeError")),
        msg,
        "available_memory < needed_memory",
        ["available_memory = self.determine_available_memory()"],
        [
            "After the weights were loaded and a profiling run measured activation memory, the "
            "memory left for the KV cache was too small.",
            "The numbers are per GPU; other processes on the same GPU reduce what is available.",
        ],
        [
            "Increase `--gpu-memory-utilization` (e.g. 0.95) if nothing else runs on the GPU.",
            "Decrease `--max-model-len` to the context length you actually need.",
            "Use more GPUs (`--tensor-parallel-size`) or a quantized checkpoint to free memory.",
        ],
        "The KV cache budget computed at startup does not fit the configured context length.",
        "Serving long-context models on a single GPU, or a second process already on the GPU.",
        [("--gpu-memory-utilization", "0.95"), ("--max-model-len", "16384")],
        [("gpu_memory_utilization", "0.95"), ("max_model_len", "16384")],
    )


def fam_engine(rng: random.Random, repo: RepoSpec) -> Invented:
    form = rng.randrange(6)
    custom = [
        c
        for c in repo.custom
        if c.endswith(
            (
                "DeadError",
                "GenerateError",
                "SchedulerError",
                "RequestError",
                "CUDAError",
                "ConfigError",
            )
        )
    ] or list(repo.custom)
    if form == 0:
        msg = (
            "Engine core initialization failed. See root cause above. Failed core proc(s): "
            f"{{{rng.choice(('failed_proc_names', 'failed', 'names'))}}}"
        )
    elif form == 1:
        msg = "EngineCore encountered an issue. See stack trace (above) for the root cause."
    elif form == 2:
        msg = (
            f"{rng.choice(('Worker', 'EngineCore', 'Scheduler', 'Detokenizer', 'API server'))} "
            f"process {{{rng.choice(('proc.name', 'pid', 'self.pid'))}}} died unexpectedly with "
            f"exit code {{{rng.choice(('exitcode', 'proc.exitcode'))}}}."
        )
    elif form == 3:
        pick13 = rng.choice(
            (
                "the engine core to start",
                "a response from the engine core",
                "workers to be ready",
                "the KV transfer handshake",
                "the model executor",
            )
        )
        timeout = rng.choice(
            ("timeout", "VLLM_RPC_TIMEOUT", "envs.VLLM_ENGINE_ITERATION_TIMEOUT_S")
        )
        msg = f"Timed out after {{{timeout}}} seconds waiting for {pick13}."
    elif form == 4:
        pick12 = rng.choice(
            (
                "failed because the engine is shutting down",
                "was aborted by the scheduler",
                "cannot be added: the engine is sleeping",
                "was already finished",
                "exceeded the maximum queue time",
            )
        )
        msg = f"Request {{{rng.choice(('request_id', 'req_id'))}}} {pick12}."
    else:
        msg = (
            f"{rng.choice(('Distributed', 'Collective', 'NCCL', 'Gloo', 'KV transfer'))} "
            f"{rng.choice(('operation', 'handshake', 'barrier', 'all-reduce', 'send/recv'))} "
            f"{rng.choice(('failed on rank', 'timed out on rank', 'hung on rank'))} "
            f"{{{rng.choice(('rank', 'self.rank', 'dist.get_rank()'))}}}: "
            f"{{{rng.choice(('e', 'err', 'exc'))}}}"
        )
    exc = rng.choice(custom) if custom and rng.random() < 0.5 else "RuntimeError"
    return Invented(
        "engine",
        rng.choice(("engine", "engine", "distributed", "worker")),
        exc,
        msg,
        "self.engine_dead or not proc.is_alive()",
        ["proc = self.processes[0]"],
        [
            f"A background process of {repo.product} failed or stopped responding; this error "
            f"is what the front end reports afterwards.",
            "The real cause is almost always printed earlier in the log, often in another "
            "process's output.",
        ],
        [
            "Scroll up in the log for the first traceback: fix that error first.",
            "Re-run with `VLLM_LOGGING_LEVEL=DEBUG` to see each process's startup.",
            "Check `dmesg` and `nvidia-smi` for GPU faults or the OOM killer.",
        ],
        "A child process exits, times out or reports an exception to the front end.",
        "Out-of-memory kills, NCCL problems on multi-GPU hosts, and crashes in custom kernels.",
        [],
        [],
    )


def fam_keyerror(rng: random.Random, repo: RepoSpec) -> Invented:
    name = rng.choice(("name", "param_name", "weight_name", "key", "prefix", "layer_name"))
    form = rng.randrange(5)
    if form == 0:
        msg = f"There is no module or parameter named '{{{name}}}' in {rng.choice(ARCH_NAMES)}"
    elif form == 1:
        msg = f"Parameter {{{name}}} not found in params_dict of {rng.choice(ARCH_NAMES)}."
    elif form == 2:
        pick11 = rng.choice(
            (
                "the forward context",
                "the static forward context",
                "the LoRA model",
                "the expert map",
                "the KV cache config",
            )
        )
        msg = (
            f"{rng.choice(('Layer', 'Adapter', 'Expert', 'Module', 'Buffer'))} {{{name}!r}} is "
            "not registered in "
            f"{pick11}."
        )
    elif form == 3:
        pick10 = rng.choice(
            (
                "quantization config",
                "state dict",
                "checkpoint index",
                "rope_scaling dict",
                "hf_config",
            )
        )
        msg = f"Missing key {{{name}}} in the {pick10} of {rng.choice(ARCH_NAMES)}."
    else:
        msg = (
            f"Unexpected weight {{{name}}} while loading {rng.choice(ARCH_NAMES)}: expected one "
            f"of {{{rng.choice(('list(params_dict)', 'expected_keys'))}}}."
        )
    return Invented(
        "keyerror",
        rng.choice(("model", "loader", "lora", "quant")),
        rng.choice(("KeyError", "KeyError", "ValueError")),
        msg,
        f"{name} not in params_dict",
        ["params_dict = dict(self.named_parameters())"],
        [
            "A name from the checkpoint has no counterpart in the model as built, or the "
            "other way round.",
            "Checkpoints saved by another framework, or with different module names, cause this.",
        ],
        [
            "Make sure the checkpoint matches the architecture in `config.json`.",
            "For quantized checkpoints, check `--quantization` matches how it was quantized.",
            "Re-export the checkpoint with the tool that produced it, without renaming modules.",
        ],
        "Weight loading finds a name mismatch.",
        "Merged LoRA checkpoints, custom fine-tunes and partially converted models.",
        [],
        [],
    )


def fam_deprecated(rng: random.Random, repo: RepoSpec) -> Invented:
    opt, new = rng.choice(CLI_OPTS), rng.choice(CLI_OPTS)
    while new == opt:
        new = rng.choice(CLI_OPTS)
    env = rng.choice(ENV_VARS)
    form = rng.randrange(5)
    if form == 0:
        msg = f"The `{opt.flag}` argument has been removed. Use `{new.flag}` instead."
    elif form == 1:
        msg = f"`{opt.name}` is no longer supported in V1; set `{new.name}` instead."
    elif form == 2:
        msg = f"{env} has been removed; pass `{opt.flag}` instead."
    elif form == 3:
        msg = (
            f"{opt.flag} was deprecated in v0.{rng.randint(6, 11)}.0 and removed in "
            f"v0.{rng.randint(12, 14)}.0; use {new.flag}."
        )
    else:
        msg = f"Setting {env} is not supported together with `{opt.flag}`; unset one of them."
    return Invented(
        "deprecated",
        rng.choice(("config", "entrypoints", "engine")),
        rng.choice(("ValueError", "TypeError", "RuntimeError")),
        msg,
        f"getattr(args, {opt.name!r}, None) is not None",
        [],
        [
            f"An option your command or code uses was renamed or removed in this version of "
            f"{repo.product}.",
            "The message names the replacement.",
        ],
        [
            "Use the replacement named in the message.",
            "Pin the previous release if you cannot change the calling code yet.",
        ],
        "The argument parser finds an option that no longer exists.",
        "Upgrading across several releases at once; scripts copied from old blog posts.",
        [(new.flag, _val(new, rng))],
        [],
        names=[opt.name, new.name],
    )


def fam_env(rng: random.Random, repo: RepoSpec) -> Invented:
    env = rng.choice(ENV_VARS)
    if repo.env_prefix != "VLLM":
        env = repo.env_prefix + env.removeprefix("VLLM")
    form = rng.randrange(4)
    if form == 0:
        msg = (
            f"Invalid value {{{rng.choice(('value', 'val!r', 'os.environ[name]'))}}} for "
            f"environment variable {env}. Expected one of "
            f"{{{rng.choice(('choices', 'valid_values'))}}}."
        )
    elif form == 1:
        msg = f"{env} must be an integer, got {{{rng.choice(('value', 'raw!r'))}}}."
    elif form == 2:
        msg = (
            f"{env}={{{rng.choice(('value', 'envs.' + env))}}} is not supported on "
            f"{rng.choice(PLATFORMS)[0]}."
        )
    else:
        msg = (
            f"Environment variable {env} is set to {{{rng.choice(('value', 'val'))}}}, which "
            f"conflicts with `{rng.choice(OPTIONS).flag}`."
        )
    return Invented(
        "env",
        rng.choice(("config", "platform", "engine")),
        "ValueError",
        msg,
        "value not in choices",
        [f"value = os.getenv({env!r}, '')"],
        [
            f"`{env}` is read from the environment when {repo.product} starts, and its value is "
            f"not one the code accepts.",
            "Environment variables override defaults silently, so this is easy to miss.",
        ],
        [
            f"Run `env | grep {env}` to see the value, and unset it or fix it.",
            "Check container images and shell profiles that may export it.",
        ],
        f"`{env}` holds an unexpected value.",
        "Docker images, CI configs or `.bashrc` files exporting an old value.",
        [],
        [],
    )


def fam_context_len(rng: random.Random, repo: RepoSpec) -> Invented:
    form = rng.randrange(5)
    mx = rng.choice(("max_model_len", "self.max_model_len", "model_config.max_model_len"))
    if form == 0:
        msg = (
            f"This model's maximum context length is {{{mx}}} tokens. However, you requested "
            f"{{{rng.choice(('total', 'num_tokens'))}}} tokens "
            f"({{{rng.choice(('len(input_ids)', 'prompt_len'))}}} in the messages, "
            f"{{{rng.choice(('max_tokens', 'request.max_tokens'))}}} in the completion). Please "
            "reduce the length of the messages or completion."
        )
    elif form == 1:
        pick9 = rng.choice(
            (
                "Make sure that `max_model_len` is no smaller than the number of text tokens "
                "plus multimodal tokens.",
                "Please reduce the prompt length.",
                "Consider truncating the prompt with `truncate_prompt_tokens`.",
            )
        )
        msg = (
            f"The {rng.choice(('decoder prompt', 'encoder prompt', 'prompt', 'input'))} (length "
            f"{{{rng.choice(('prompt_len', 'len(prompt_ids)'))}}}) is longer than the maximum "
            f"model length of {{{mx}}}. "
            f"{pick9}"
        )
    elif form == 2:
        msg = (
            "`max_tokens` must be at least 1, got "
            f"{{{rng.choice(('max_tokens', 'request.max_tokens'))}}}."
        )
    elif form == 3:
        msg = (
            f"Input has {{{rng.choice(('num_tokens', 'len(token_ids)'))}}} tokens, which exceeds "
            "the "
            f"{rng.choice(('embedding', 'scoring', 'classification', 'rerank', 'transcription'))} "
            f"limit of {{{mx}}} tokens."
        )
    else:
        msg = (
            "truncate_prompt_tokens value "
            f"({{{rng.choice(('truncate_prompt_tokens', 'request.truncate_prompt_tokens'))}}}) is "
            f"greater than max_model_len ({{{mx}}}). Please, select a smaller truncation size."
        )
    return Invented(
        "context_len",
        rng.choice(("entrypoints", "engine")),
        "ValueError",
        msg,
        "prompt_len > max_model_len",
        ["prompt_len = len(prompt_ids)"],
        [
            "The request is longer than the context window the engine was started with "
            "(`max_model_len`), counting both prompt and requested output tokens.",
            "The check is per request: the server keeps running and other requests are served.",
        ],
        [
            "Shorten the prompt or lower `max_tokens` in the request.",
            "Start the server with a larger `--max-model-len`, if the model and memory allow.",
            "Truncate long inputs on the client, or use `truncate_prompt_tokens`.",
        ],
        "Request validation adds prompt and output tokens and compares with `max_model_len`.",
        "Long chat histories, RAG prompts with many documents, large default `max_tokens`.",
        [("--max-model-len", "32768")],
        [("max_model_len", "32768")],
    )


def fam_mm(rng: random.Random, repo: RepoSpec) -> Invented:
    mod = rng.choice(MODALITIES)
    form = rng.randrange(5)
    if form == 0:
        msg = (
            f"At most {{{rng.choice(('limit', 'allowed', 'mm_limit'))}}} {mod}(s) may be provided "
            f"in one prompt, got {{{rng.choice(('num_items', 'len(items)'))}}}."
        )
    elif form == 1:
        msg = (
            f"Expected there to be {{{rng.choice(('num_items', 'expected'))}}} {mod} placeholders "
            f"in the prompt, but found {{{rng.choice(('found', 'num_placeholders'))}}}."
        )
    elif form == 2:
        msg = f"{rng.choice(ARCH_NAMES)} does not support {mod} inputs."
    elif form == 3:
        msg = (
            f"The {mod} {rng.choice(('processor', 'encoder', 'embedding'))} returned "
            f"{{{rng.choice(('actual', 'len(embeds)'))}}} "
            f"{rng.choice(('tokens', 'features', 'patches'))} but the prompt has "
            f"{{{rng.choice(('expected', 'num_tokens'))}}} placeholder tokens for "
            f"{rng.choice(ARCH_NAMES)}."
        )
    else:
        msg = (
            "Failed to apply prompt replacement for "
            f"mm_items['{mod}'][{{{rng.choice(('item_idx', 'i'))}}}]."
        )
    return Invented(
        "multimodal",
        "multimodal",
        rng.choice(
            (
                "ValueError",
                "ValueError",
                "RuntimeError",
                "vllm.multimodal.processing.PromptUpdateError"
                if repo.product == "vLLM"
                else "RuntimeError",
            )
        ),
        msg,
        "num_items > limit",
        ["num_items = len(mm_items.get(modality, []))"],
        [
            f"The {mod} inputs of the request do not fit what the model's processor expects: "
            f"their number, or the placeholder tokens that stand for them in the prompt.",
            "Chat requests insert placeholders automatically; raw prompts must contain them.",
        ],
        [
            f"Send at most the number of {mod} items allowed, or raise the limit with "
            f"`--limit-mm-per-prompt '{{\"{mod}\": 4}}'`.",
            "Use the chat API, or the model's prompt format, so placeholders are correct.",
        ],
        "Multimodal processing compares items with placeholders and limits.",
        "Sending several images to a model started with the default limit of one.",
        [("--limit-mm-per-prompt", f"'{{\"{mod}\": 4}}'")],
        [("limit_mm_per_prompt", f'{{"{mod}": 4}}')],
    )


def fam_platform(rng: random.Random, repo: RepoSpec) -> Invented:
    feat = rng.choice(FEATURES)
    form = rng.randrange(4)
    swap: list[tuple[str, str]] = []
    if form == 0:
        msg = f"{feat.name} is not supported on {SLOT}."
        swap = list(PLATFORMS)
        rng.shuffle(swap)
        cond = SLOT_COND
    elif form == 1:
        msg = (
            f"{feat.name} requires compute capability "
            f"{rng.choice(('8.0', '8.9', '9.0', '10.0', '7.5'))} or higher, got "
            f"{{{rng.choice(('capability', 'current_platform.get_device_capability()', 'cc'))}}}."
        )
        cond = "capability < required"
    elif form == 2:
        msg = f"{feat.name} is only available on {SLOT} GPUs."
        swap = [
            ("NVIDIA", "not current_platform.is_cuda()"),
            ("AMD", "not current_platform.is_rocm()"),
            ("Hopper", "not current_platform.is_device_capability(90)"),
            ("Blackwell", "not current_platform.is_device_capability(100)"),
        ]
        rng.shuffle(swap)
        cond = SLOT_COND
    else:
        msg = (
            f"{feat.name} is not supported by the "
            f"{{{rng.choice(('platform', 'current_platform.device_name', 'device_type'))}}} "
            "platform."
        )
        cond = f"not current_platform.supports_{_ident(feat)}()"
    return Invented(
        "platform",
        "platform",
        rng.choice(("NotImplementedError", "ValueError", "RuntimeError")),
        msg,
        cond,
        [],
        [
            f"{feat.name} relies on kernels that exist only for some hardware; the device "
            f"{repo.product} is running on is not one of them.",
            "The check uses the platform detected at import time (see `current_platform`).",
        ],
        [
            f"Disable {feat.lower} on this hardware.",
            "Run on a supported GPU generation.",
            "Check the installed build: a CPU-only or ROCm wheel changes the detected platform.",
        ],
        "The detected platform or device capability does not support the feature.",
        "Moving a deployment from H100s to older or non-NVIDIA hardware.",
        [],
        [],
        swap,
    )


def fam_lora(rng: random.Random, repo: RepoSpec) -> Invented:
    form = rng.randrange(6)
    if form == 0:
        msg = (
            f"LoRA rank {{{rng.choice(('rank', 'peft_config.r', 'lora_config.r'))}}} is greater "
            f"than max_lora_rank {{{rng.choice(('max_lora_rank', 'self.max_lora_rank'))}}}."
        )
    elif form == 1:
        msg = (
            f"LoRA adapter {{{rng.choice(('lora_name', 'lora_request.lora_name', 'name'))}}} has "
            f"target modules {{{rng.choice(('target_modules', 'unexpected_modules'))}}} that "
            f"{rng.choice(ARCH_NAMES)} does not support."
        )
    elif form == 2:
        msg = (
            f"No free LoRA slots: {{{rng.choice(('len(active)', 'num_active'))}}} adapters are "
            "active and max_loras is "
            f"{{{rng.choice(('max_loras', 'self.lora_config.max_loras'))}}}."
        )
    elif form == 3:
        pick8 = rng.choice(
            (
                "no adapter_config.json found",
                "the adapter was trained with a different base model",
                "DoRA is not supported",
                "modules_to_save is not supported",
                "bias is not supported",
            )
        )
        msg = (
            f"Loading lora {{{rng.choice(('lora_path', 'lora_request.lora_path'))}}} failed: "
            f"{pick8}."
        )
    elif form == 4:
        pick7 = rng.choice(
            (
                "tied embeddings",
                "extra vocabulary",
                "MoE experts",
                "fully sharded layers",
                "bias terms",
            )
        )
        msg = f"LoRA with {pick7} is not supported for {rng.choice(ARCH_NAMES)}."
    else:
        msg = (
            "lora_int_id must be > 0, got "
            f"{{{rng.choice(('lora_int_id', 'lora_request.lora_int_id'))}}} for adapter "
            f"{{{rng.choice(('lora_name', 'lora_request.lora_name'))}}}."
        )
    custom = [c for c in repo.custom if "LoRA" in c]
    return Invented(
        "lora",
        "lora",
        rng.choice(custom) if custom and rng.random() < 0.3 else "ValueError",
        msg,
        "lora_config.r > self.max_lora_rank",
        ["lora_config = PEFTHelper.from_local_dir(lora_path, max_position_embeddings)"],
        [
            "The LoRA adapter does not fit the limits the engine was started with, or uses a "
            "PEFT feature the LoRA kernels do not implement.",
            "LoRA limits are fixed at startup because buffers are preallocated for them.",
        ],
        [
            "Restart with larger `--max-lora-rank` / `--max-loras` as needed.",
            "Retrain or convert the adapter without the unsupported option.",
            "Check `adapter_config.json` of the adapter (`r`, `target_modules`).",
        ],
        "Adding or loading a LoRA adapter checks it against `LoRAConfig`.",
        "Adapters trained with a larger rank than the server default of 16.",
        [("--enable-lora", ""), ("--max-lora-rank", "64")],
        [("enable_lora", "True"), ("max_lora_rank", "64")],
    )


def fam_spec(rng: random.Random, repo: RepoSpec) -> Invented:
    form = rng.randrange(5)
    method = rng.choice(
        ("ngram", "eagle", "eagle3", "medusa", "mtp", "draft_model", "mlp_speculator")
    )
    if form == 0:
        msg = (
            f"Speculative method {method} requires `num_speculative_tokens` to be set; got "
            f"{{{rng.choice(('num_speculative_tokens', 'self.num_speculative_tokens'))}}}."
        )
    elif form == 1:
        msg = (
            "The draft model's vocab size "
            f"({{{rng.choice(('draft_vocab_size', 'draft_config.vocab_size'))}}}) must match the "
            f"target model's ({{{rng.choice(('target_vocab_size', 'vocab_size'))}}}) for {method} "
            "speculation."
        )
    elif form == 2:
        msg = f"{method} speculative decoding does not support {rng.choice(FEATURES).lower}."
    elif form == 3:
        msg = (
            f"num_speculative_tokens ({{{rng.choice(('n', 'num_speculative_tokens'))}}}) must be "
            f"divisible by the number of {method} heads "
            f"({{{rng.choice(('n_heads', 'num_heads'))}}})."
        )
    else:
        msg = (
            "Could not infer the speculative method from "
            f"{{{rng.choice(('model', 'self.model', 'draft_model'))}}}; set `method` explicitly "
            "in `--speculative-config`."
        )
    return Invented(
        "spec",
        "spec",
        rng.choice(("ValueError", "NotImplementedError")),
        msg,
        "self.num_speculative_tokens is None",
        [],
        [
            f"The speculative decoding configuration is inconsistent for the {method} method.",
            "Speculative settings are passed as one JSON object in `--speculative-config`.",
        ],
        [
            "Set the missing or mismatching field in `--speculative-config`.",
            "Use a draft model trained for the exact target model.",
        ],
        "`SpeculativeConfig` validation.",
        "Pairing a draft model with a different tokenizer, or omitting `num_speculative_tokens`.",
        [("--speculative-config", f'\'{{"method": "{method}", "num_speculative_tokens": 3}}\'')],
        [("speculative_config", f'{{"method": "{method}", "num_speculative_tokens": 3}}')],
    )


def fam_conflict(rng: random.Random, repo: RepoSpec) -> Invented:
    a, b = rng.choice(CLI_OPTS), rng.choice(CLI_OPTS)
    while b == a:
        b = rng.choice(CLI_OPTS)
    form = rng.randrange(5)
    if form == 0:
        msg = f"`{a.flag}` and `{b.flag}` cannot both be set."
    elif form == 1:
        msg = f"Only one of `{a.name}` and `{b.name}` may be given."
    elif form == 2:
        msg = f"{a.flag} is ignored when {b.flag} is set; pass only one of them."
    elif form == 3:
        msg = f"`{a.name}` requires `{b.name}` to be set as well."
    else:
        msg = (
            f"Setting both {a.name} and {b.name} is ambiguous: {{{rng.choice(('a', a.name))}}} vs "
            f"{{{rng.choice(('b', b.name))}}}."
        )
    return Invented(
        "conflict",
        rng.choice(("config", "entrypoints")),
        rng.choice(("ValueError", "ValueError", "TypeError")),
        msg,
        f"args.{a.name} is not None and args.{b.name} is not None",
        [],
        [
            f"`{a.flag}` and `{b.flag}` control the same thing in different ways, so "
            f"{repo.product} refuses to guess which one you meant.",
        ],
        [
            f"Keep `{a.flag}` or `{b.flag}`, not both.",
            "Check config files (`--config`) that may set one of them for you.",
        ],
        "Argument post-processing finds both options set.",
        "A YAML config file and the command line each setting one of the pair.",
        [],
        [],
        names=[a.name, b.name],
    )


def fam_weights(rng: random.Random, repo: RepoSpec) -> Invented:
    arch = rng.choice(ARCH_NAMES)
    form = rng.randrange(4)
    w = rng.choice(("name", "weight_name", "param_name"))
    if form == 0:
        msg = (
            f"Weight {{{w}}} has shape "
            f"{{{rng.choice(('loaded_weight.shape', 'tuple(weight.shape)'))}}}, but {arch} "
            f"expects {{{rng.choice(('param.shape', 'expected_shape'))}}}."
        )
    elif form == 1:
        msg = (
            "Attempted to load weight "
            f"({{{rng.choice(('loaded_weight.size()', 'loaded_weight.shape'))}}}) into parameter "
            f"({{{rng.choice(('param.size()', 'param.data.shape'))}}})"
        )
    elif form == 2:
        msg = (
            f"Checkpoint for {arch} is missing {{{rng.choice(('len(missing)', 'num_missing'))}}} "
            f"weights, e.g. {{{rng.choice(('missing[0]', 'sorted(missing)[:3]'))}}}."
        )
    else:
        msg = (
            f"{rng.choice(QUANTS)} checkpoint has "
            f"{{{rng.choice(('scale.numel()', 'len(scales)'))}}} scales for {{{w}}}; expected "
            f"{{{rng.choice(('expected', 'num_groups'))}}} "
            f"(group_size={{{rng.choice(('group_size', 'self.group_size'))}}})."
        )
    custom = [c for c in repo.custom if "Weight" in c]
    return Invented(
        "weights",
        rng.choice(("loader", "model", "quant")),
        rng.choice(custom)
        if custom and rng.random() < 0.3
        else rng.choice(("ValueError", "AssertionError", "RuntimeError")),
        msg,
        "param.shape != loaded_weight.shape",
        ["param = params_dict[name]"],
        [
            f"A tensor in the checkpoint does not have the shape {arch} builds for it.",
            "Usually the checkpoint and `config.json` disagree, or the tensor-parallel split "
            "does not match how the checkpoint was sharded.",
        ],
        [
            "Check `config.json` against the checkpoint (hidden size, vocab size, heads).",
            "Re-download the model; a mixed or partial download can contain stale shards.",
            "For pre-sharded checkpoints, load with the tensor parallel size they were saved with.",
        ],
        "A weight loader compares shapes while copying tensors into parameters.",
        "Fine-tunes with an extended vocabulary, or edited `config.json` files.",
        [],
        [],
    )


def fam_chat(rng: random.Random, repo: RepoSpec) -> Invented:
    form = rng.randrange(5)
    if form == 0:
        msg = (
            "As of transformers v4.44, default chat template is no longer allowed, so you must "
            "provide a chat template if the tokenizer does not define one."
        )
        msg = msg.replace("v4.44", f"v4.{rng.randint(40, 56)}")
    elif form == 1:
        msg = (
            "Chat template must be a string or a path to a file, got "
            f"{{{rng.choice(('type(chat_template)', 'type(template).__name__'))}}}."
        )
    elif form == 2:
        role = rng.choice(("role", "message['role']", "msg.role"))
        msg = (
            f"Unsupported message role {{{role}}}; "
            "expected one of system, user, assistant, tool, developer."
        )
    elif form == 3:
        pick6 = rng.choice(
            (
                "apply_chat_template",
                "tool calls",
                "continue_final_message",
                "add_generation_prompt",
                "return_assistant_tokens_mask",
            )
        )
        msg = (
            f"Tokenizer {{{rng.choice(('type(tokenizer).__name__', 'tokenizer_name'))}}} does not "
            "support "
            f"{pick6}."
        )
    else:
        pick5 = rng.choice(
            (
                "is not supported by this endpoint",
                "is not supported with streaming",
                "must be used together with `tools`",
                "is only supported for chat models",
            )
        )
        field_name = rng.choice(
            [
                "tool_choice",
                "tools",
                "logprobs",
                "n",
                "best_of",
                "echo",
                "suffix",
                "logit_bias",
                "parallel_tool_calls",
                "stream_options",
            ]
        )
        msg = f"`{field_name}` {pick5}."
    return Invented(
        "chat",
        rng.choice(("entrypoints", "tokenizer")),
        rng.choice(("ValueError", "TypeError", "NotImplementedError")),
        msg,
        "chat_template is None",
        ["chat_template = resolve_chat_template(tokenizer, chat_template, tools)"],
        [
            "The request or the tokenizer lacks something the chat endpoint needs to turn "
            "messages into a prompt.",
            "Base (non-instruct) models often ship without a chat template.",
        ],
        [
            "Pass `--chat-template` with a Jinja template file for the model.",
            "Use the completions endpoint for base models.",
            "Fix the request body to match the OpenAI API schema.",
        ],
        "Chat request pre-processing.",
        "Serving base models through `/v1/chat/completions`; clients sending extra fields.",
        [("--chat-template", "./template_chatml.jinja")],
        [],
    )


def fam_quant(rng: random.Random, repo: RepoSpec) -> Invented:
    q = rng.choice(QUANTS)
    form = rng.randrange(5)
    if form == 0:
        msg = (
            f"The quantization method {q} is not supported for the current GPU. Minimum "
            f"capability: {{{rng.choice(('min_capability', 'quant_cls.get_min_capability()'))}}}. "
            f"Current capability: {{{rng.choice(('capability', 'capability_tuple.to_int()'))}}}."
        )
    elif form == 1:
        msg = (
            "Quantization method specified in the model config "
            f"({{{rng.choice(('quant_method', 'hf_quant_method'))}}}) does not match the "
            "quantization method specified in the `quantization` argument "
            f"({{{rng.choice(('self.quantization', 'quantization'))}}})."
        )
    elif form == 2:
        msg = f"{q} quantization is currently not supported in {rng.choice(PLATFORMS)[0]}."
    elif form == 3:
        msg = (
            f"{q} does not support "
            f"{rng.choice(('group size', 'bits', 'desc_act', 'zero points', 'activation scheme'))} "
            f"{{{rng.choice(('group_size', 'weight_bits', 'self.desc_act', 'scheme'))}}}; "
            f"supported: {{{rng.choice(('SUPPORTED', 'supported_values'))}}}."
        )
    else:
        msg = f"Cannot use {q} quantization with {rng.choice(FEATURES).lower}."
    return Invented(
        "quant",
        "quant",
        rng.choice(("ValueError", "ValueError", "NotImplementedError")),
        msg,
        "capability < quant_config.get_min_capability()",
        ["capability = current_platform.get_device_capability().to_int()"],
        [
            f"The {q} quantization path cannot run here: the GPU, the checkpoint's quantization "
            f"config or another option rules it out.",
            "Quantization is normally detected from the checkpoint's `quantization_config`.",
        ],
        [
            "Drop `--quantization` and let the engine read it from the checkpoint.",
            "Use a checkpoint quantized with a method your GPU supports (e.g. AWQ on Turing).",
            "Pick a supported parameter for the method (group size, bits).",
        ],
        "Quantization config validation.",
        "Running FP8 checkpoints on pre-Ada GPUs; forcing a method different from the checkpoint.",
        [],
        [],
    )


def fam_state(rng: random.Random, repo: RepoSpec) -> Invented:
    verb = rng.choice(("add", "remove", "load", "pin", "swap", "reset", "update", "abort"))
    thing = rng.choice(
        (
            "a LoRA adapter",
            "the prefix cache",
            "requests",
            "the model weights",
            "the KV cache",
            "a new request",
            "the sampler",
            "the tokenizer",
            "the expert map",
        )
    )
    state = rng.choice(
        (
            "the engine is sleeping",
            "the engine is paused",
            "requests are still running",
            "the engine is shutting down",
            "weights are offloaded",
            "a profile run is in progress",
            "the scheduler is draining",
            "CUDA graphs are being captured",
        )
    )
    form = rng.randrange(3)
    if form == 0:
        msg = f"Cannot {verb} {thing} while {state}."
    elif form == 1:
        msg = f"Failed to {verb} {thing}: {state}."
    else:
        msg = f"{verb.capitalize()} {thing} is not allowed while {state}; wait and retry."
    return Invented(
        "state",
        rng.choice(("engine", "worker", "lora", "entrypoints")),
        rng.choice(("RuntimeError", "RuntimeError", "ValueError", "AssertionError")),
        msg,
        "self.is_sleeping",
        [],
        [
            f"The operation is not allowed in the engine's current state ({state}).",
            "It is a timing issue rather than a configuration error.",
        ],
        [
            "Wait for the engine to return to normal operation, then retry.",
            "Call `wake_up()` (or the `/wake_up` endpoint) before sending work after sleep mode.",
        ],
        f"`{verb}` is requested while {state}.",
        "Orchestrators that send requests right after putting the engine to sleep.",
        [],
        [],
    )


def fam_mismatch(rng: random.Random, repo: RepoSpec) -> Invented:
    pairs = (
        ("prompts", "sampling params"),
        ("prompts", "LoRA requests"),
        ("images", "image placeholders"),
        ("queries", "documents"),
        ("token ids", "logprobs"),
        ("layers", "KV cache groups"),
        ("experts", "expert weights"),
        ("ranks", "devices"),
        ("request ids", "outputs"),
        ("draft tokens", "target logits"),
        ("stop strings", "stop token ids"),
        ("inputs", "priorities"),
        ("adapters", "adapter ids"),
        ("block ids", "KV cache tensors"),
    )
    a, b = rng.choice(pairs)
    form = rng.randrange(4)
    la, lb = f"len({a.replace(' ', '_')})", f"len({b.replace(' ', '_')})"
    if form == 0:
        msg = f"The number of {a} ({{{la}}}) does not match the number of {b} ({{{lb}}})."
    elif form == 1:
        msg = f"The lengths of {a} ({{{la}}}) and {b} ({{{lb}}}) must be the same."
    elif form == 2:
        msg = f"Mismatched {a} and {b}: got {{{la}}} and {{{lb}}}."
    else:
        msg = (
            f"Expected one {b[:-1] if b.endswith('s') else b} per "
            f"{a[:-1] if a.endswith('s') else a}, got {{{lb}}} for {{{la}}} {a}."
        )
    return Invented(
        "mismatch",
        rng.choice(("entrypoints", "worker", "engine", "multimodal")),
        "ValueError",
        msg,
        f"{la} != {lb}",
        [],
        [
            f"Two lists that must line up one to one, {a} and {b}, have different lengths.",
            "When you pass lists to `LLM.generate` or `LLM.score`, each element pairs with the "
            "element at the same position.",
        ],
        [
            f"Pass one of {b} per entry of {a}, or a single value to apply to all.",
            "Print both lengths before the call to find where they diverge.",
        ],
        "Input pre-processing zips the two lists.",
        "Filtering one list (e.g. removing empty prompts) without the other.",
        [],
        [],
    )


_HEAVY_LINKS = (
    "failed:",
    "is invalid:",
    "mismatch:",
    "not found:",
    "rejected:",
    "timed out:",
    "is not supported:",
    "out of range:",
    "already exists:",
    "is missing:",
    "error:",
    "is not ready:",
    "was aborted:",
    "cannot be parsed:",
    "is deprecated:",
    "conflicts with",
    "differs from",
    "exceeds",
    "is below",
    "expected, got",
    "vs",
    "->",
    "is not a",
    "has no",
    "requires",
    "not in",
    "failed for",
    "!=",
)
_HEAVY_TAGS = (
    "LoRA",
    "KV",
    "EPLB",
    "NCCL",
    "Scheduler",
    "Sampler",
    "Tokenizer",
    "Detokenizer",
    "Processor",
    "Worker",
    "Executor",
    "Connector",
    "Compiler",
    "Graph",
    "Pooler",
    "Router",
    "Cache",
    "Loader",
    "Renderer",
    "Engine",
)


def fam_heavy(rng: random.Random, repo: RepoSpec) -> Invented:
    """Templates that are almost all placeholder."""

    def p(names: Sequence[str]) -> str:
        extra = ("value", "item", "obj", "arg", "data", "result", "target", "spec")
        plain = [n for n in names if n.isidentifier()]
        more = [f"{rng.choice(plain)}_{rng.choice(extra)}"] if plain else []
        return rng.choice(list(names) + more)

    link = rng.choice(_HEAVY_LINKS)
    tag = rng.choice(_HEAVY_TAGS)
    a = p(("name", "key", "self.name", "kind", "what", "field", "op", "func"))
    b = p(("reason", "e", "err", "msg", "value", "v", "detail", "other"))
    form = rng.randrange(6)
    if form == 0:
        msg = f"{{{a}}} {link} {{{b}}}"
    elif form == 1:
        msg = f"{tag}: {{{a}}} {link} {{{b}}}"
    elif form == 2:
        cls = p(("cls.__name__", "type(self).__name__", "self.__class__.__name__"))
        msg = f"{{{cls}}}.{{{p(('method', 'fn.__name__', 'name'))}}}() {link} {{{b}}}"
    elif form == 3:
        msg = f"{tag} {{{a}}} {link} {{{b}}} ({{{p(('code', 'status', 'where', 'context'))}}})"
    elif form == 4:
        msg = f"[{{{p(('rank', 'self.rank', 'dp_rank'))}}}] {tag} {link} {{{b}}}"
    else:
        msg = f"{{{p(('prefix', 'self.prefix', 'tag'))}}}{tag} {link} {{{b}}}"
    return Invented(
        "heavy",
        rng.choice(AREAS),
        rng.choice(("ValueError", "RuntimeError", "TypeError", "AssertionError", "KeyError")),
        msg,
        "not ok",
        ["ok, reason = self._check(value)"],
        [
            f"A generic error raised by a helper in {repo.product}: almost all of the message is "
            f"filled in at runtime, so the values in your message say what went wrong.",
            "Read the text after the colon: it is the underlying reason.",
        ],
        [
            "Look at the values in your message: they name the field and the bad value.",
            "Scroll up in the log for a more specific error raised first.",
        ],
        "A shared validation helper rejects a value.",
        "Various: the helper is called from several places.",
        [],
        [],
    )


def fam_api(rng: random.Random, repo: RepoSpec) -> Invented:
    param = rng.choice(
        (
            "temperature",
            "top_p",
            "top_k",
            "min_p",
            "presence_penalty",
            "frequency_penalty",
            "repetition_penalty",
            "n",
            "best_of",
            "logprobs",
            "top_logprobs",
            "seed",
            "max_tokens",
            "min_tokens",
            "length_penalty",
            "prompt_logprobs",
        )
    )
    form = rng.randrange(5)
    if form == 0:
        bound = rng.choice(
            ("non-negative", "in [0, 1]", "at least 1", "in [-2, 2]", "positive", "in (0, 1]")
        )
        msg = f"{param} must be {bound}, got {{{rng.choice((param, 'self.' + param))}}}."
    elif form == 1:
        msg = (
            f"Requested {param} of {{{rng.choice((param, 'request.' + param))}}}, which is "
            "greater than max allowed: "
            f"{{{rng.choice(('max_' + param, 'self.max_' + param, 'limit'))}}}"
        )
    elif form == 2:
        pick2 = rng.choice(
            (
                "with beam search",
                "in streaming mode",
                "for pooling models",
                "when using speculative decoding",
                "with structured outputs",
                "by the Responses API",
            )
        )
        msg = f"{param} is not supported {pick2}."
    elif form == 3:
        msg = (
            f"`{param}` must be "
            f"{rng.choice(('an integer', 'a float', 'None or an integer', 'a list of strings'))}, "
            f"got {{{rng.choice(('type(' + param + ')', 'type(value).__name__'))}}}."
        )
    else:
        pick1 = rng.choice(
            ("greedy sampling", "best_of", "temperature=0", "n > 1", "use_beam_search=True")
        )
        msg = f"{param}={{{param}}} conflicts with {pick1}."
    return Invented(
        "api",
        rng.choice(("sampling", "entrypoints")),
        rng.choice(("ValueError", "ValueError", "TypeError")),
        msg,
        f"self.{param} < 0",
        [],
        [
            f"The sampling parameter `{param}` has a value the engine cannot use.",
            "The request is rejected with HTTP 400; the server keeps running.",
        ],
        [
            f"Send `{param}` within the documented range, or leave it out for the default.",
            "Check client libraries that may send their own defaults.",
        ],
        "`SamplingParams` validation.",
        "Clients sending values meant for another provider's API.",
        [],
        [],
    )


FAMILIES: tuple[tuple[Family, int], ...] = (
    (fam_divisible, 7),
    (fam_exceeds, 4),
    (fam_not_yet, 8),
    (fam_interface, 4),
    (fam_unknown, 5),
    (fam_archs, 2),
    (fam_cannot_find, 3),
    (fam_expected, 6),
    (fam_invalid_choice, 4),
    (fam_requires, 8),
    (fam_range, 5),
    (fam_compare, 4),
    (fam_dtype, 4),
    (fam_backend, 4),
    (fam_memory, 2),
    (fam_engine, 3),
    (fam_keyerror, 3),
    (fam_deprecated, 3),
    (fam_env, 3),
    (fam_context_len, 2),
    (fam_mm, 3),
    (fam_platform, 3),
    (fam_lora, 3),
    (fam_spec, 2),
    (fam_conflict, 3),
    (fam_weights, 3),
    (fam_chat, 2),
    (fam_quant, 3),
    (fam_state, 3),
    (fam_mismatch, 3),
    (fam_api, 3),
)


# --- Source excerpts -----------------------------------------------------------------


def _split_words(message: str) -> list[str]:
    """Words with their trailing space, never splitting inside a ``{…}`` placeholder."""
    words: list[str] = []
    current: list[str] = []
    depth = 0
    for char in message:
        current.append(char)
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        elif char == " " and depth == 0:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return words


def _literal_lines(message: str, width: int, positional: bool) -> list[str]:
    """The message as adjacent string literals, one per line, as the source would write it."""
    chunks: list[str] = []
    current = ""
    for word in _split_words(message):
        if current and len(current) + len(word) > width:
            chunks.append(current)
            current = ""
        current += word
    if current:
        chunks.append(current)
    out = []
    for chunk in chunks:
        body = chunk.replace("\\", "\\\\").replace('"', '\\"')
        prefix = "f" if not positional and ("{" in chunk or "}" in chunk) else ""
        out.append(f'{prefix}"{body}"')
    return out


_KERNEL_MODULES = ("flashinfer", "triton", "xgrammar", "deep_gemm", "pplx_kernels", "nixl")
_ENV_FLAGS = ("USE_V1", "ALLOW_LONG_MAX_MODEL_LEN", "USE_DEEP_GEMM", "ENABLE_V1_MULTIPROCESSING")


def _filler_block(rng: random.Random, names: Sequence[str]) -> list[str]:
    """A few lines of plausible method body (relative indentation)."""
    opt = rng.choice(names) if names and rng.random() < 0.7 else rng.choice(OPTIONS).name
    other = rng.choice(OPTIONS)
    if other.name == opt:
        other = OPTIONS[(OPTIONS.index(other) + 1) % len(OPTIONS)]
    number = opt if opt in BY_NAME and BY_NAME[opt].kind == "int" else rng.choice(INT_OPTS).name
    kind = rng.randrange(12)
    if kind == 0:
        return [f"{opt} = self.{opt}"]
    if kind == 1:
        return [
            f"if self.{opt} is None:",
            (
                f"    self.{opt} = "
                f"{rng.choice(('0', '1', '16', 'None', 'self._default_' + opt + '()'))}"
            ),
        ]
    if kind == 2:
        return [
            f"if self.{other.name} and not self.{opt}:",
            "    logger.warning(",
            f'        "{rng.choice(LOG_LINES)}",',
            f'        "{other.name}",',
            "    )",
        ]
    if kind == 3:
        return ["# " + rng.choice(COMMENTS)]
    if kind == 4:
        return [""]
    if kind == 5:
        return [
            "for layer_name, layer in self.layers.items():",
            f"    if getattr(layer, {opt!r}, None) is not None:",
            f"        layer.{opt} = {opt}",
        ]
    if kind == 6:
        return [
            "try:",
            f"    import {rng.choice(_KERNEL_MODULES)}  # noqa: F401",
            "except ImportError:",
            f"    {rng.choice(('has_kernel', 'use_fast_path', 'available'))} = False",
        ]
    if kind == 7:
        return [f'assert self.{opt} is not None, "{opt} must be resolved first"']
    if kind == 8:
        return [
            f"if envs.VLLM_{rng.choice(_ENV_FLAGS)}:",
            f"    self.{number} = max(self.{number}, {rng.choice(('1', '8', '16', '256'))})",
        ]
    if kind == 9:
        return [
            f"{opt} = "
            + rng.choice((f"getattr(hf_config, {opt!r}, None)", f"int({opt})", f"{opt} or 0"))
        ]
    if kind == 10:
        return [
            f"if self.{opt} != self.{other.name}:",
            "    logger.info_once(",
            f'        "Using %s=%d for this model.", "{opt}", self.{opt}',
            "    )",
        ]
    return [f"self._{opt}_verified = True"]


def _excerpt(
    rng: random.Random, draft: Invented, line: int, cls: str | None, method: str
) -> tuple[int, str]:
    """Excerpt start and code around a raise at ``line``."""
    base = "        " if cls else "    "
    top = "    " if cls else ""
    raise_name = draft.exception.rsplit(".", 1)[-1]
    pieces = _literal_lines(draft.message, rng.randint(48, 66), draft.fmt_args is not None)
    block: list[str] = []
    nested = rng.random() < 0.2
    ind = base + ("    " if nested else "")
    if nested:
        block.append(
            base
            + (
                f"for {rng.choice(('item', 'layer', 'req', 'name'))} in "
                f"{rng.choice(('items', 'self.layers', 'requests', 'names'))}:"
            )
        )
    for s in draft.setup:
        block.append(ind + s)
    keyword = "elif" if rng.random() < 0.15 else "if"
    if keyword == "elif":
        block.append(
            ind + f"if {rng.choice(('self.disabled', 'not self.enabled', 'value is None'))}:"
        )
        block.append(ind + "    return" + rng.choice(("", " None", " self")))
    cond = draft.cond
    if len(ind) + len(cond) > 90:
        block.append(ind + f"{keyword} (")
        parts = cond.split(" and ")
        for number, part in enumerate(parts):
            block.append(ind + "    " + part + (" and" if number < len(parts) - 1 else ""))
        block.append(ind + "):")
    else:
        block.append(ind + f"{keyword} {cond}:")
    raise_index = len(block)
    block.append(ind + f"    raise {raise_name}(")
    for piece in pieces:
        block.append(ind + "        " + piece)
    if draft.fmt_args is not None:
        block[-1] += ".format(" + ", ".join(draft.fmt_args) + ")"
    block.append(ind + "    )")
    names = draft.names
    total = rng.randint(30, 50)
    before = rng.randint(4, max(5, total - len(block) - 3))
    params = "self" if cls else "config"
    signature = top + f"def {method}({params}) -> None:"
    head: list[str] = []
    boundaries: list[int] = []
    while len(head) < before:
        lines = [base + s if s else "" for s in _filler_block(rng, names)]
        head = lines + head
        boundaries = [0] + [b + len(lines) for b in boundaries]
    head_lines = head[-before:]
    cuts = [b - (len(head) - before) for b in boundaries]
    cuts = [c for c in cuts if 2 <= c <= min(8, len(head_lines) - 3)]
    if cuts and rng.random() < 0.6:
        cut = rng.choice(cuts)
        head_lines = [*head_lines[:cut], "", signature, *head_lines[cut:]]
    tail: list[str] = []
    while len(head_lines) + len(block) + len(tail) < total:
        tail.extend(base + s if s else "" for s in _filler_block(rng, names))
    if rng.random() < 0.5:
        tail.append(
            base
            + rng.choice(
                (
                    "return self",
                    "return None",
                    "return",
                    f"return {rng.choice(names) if names else 'True'}",
                )
            )
        )
    lines = head_lines + block + tail
    lines = [ln.rstrip() for ln in lines[:total]]
    start = line - (len(head_lines) + raise_index)
    return start, "\n".join(lines) + "\n"


# --- Prose ---------------------------------------------------------------------------

_EXTRA_MEANING = (
    "The check runs while the engine configuration is built, before any weights are loaded, "
    "so it fails within seconds of startup.",
    "Values in the message are the ones {product} resolved after applying defaults and the "
    "model's `config.json`, which may differ from what you passed.",
    "Nothing is wrong with the GPU or the installation; the combination is rejected on purpose.",
    "Because the error is raised during validation, no GPU memory has been allocated yet and it "
    "is safe to retry with different arguments.",
    "Offline inference (`LLM(...)`) and the OpenAI-compatible server share this validation, so "
    "the fix is the same for both.",
    "The raise is in `{function}` (`{path}`); the excerpt shows the exact condition.",
)
_EXTRA_SOLUTIONS = (
    "Upgrade to the latest release: support for more combinations is added regularly.",
    "Re-run with `{env}_LOGGING_LEVEL=DEBUG` to print the resolved configuration before the check.",
    "Search the issue tracker for the exact message; model-specific workarounds are often "
    "posted there.",
    "Start from a minimal configuration (one GPU, default options) and add options back one "
    "at a time to find the one that triggers it.",
)
_EXTRA_SITUATIONS = (
    "It also shows up in CI when a test matrix adds a new model or GPU type.",
    "Helm charts and launch scripts that template many flags are a frequent source.",
    "Upgrades that change a default can surface it without any change on your side.",
)


def _fix_blocks(rng: random.Random, draft: Invented, repo: RepoSpec) -> list[dict[str, str]]:
    model = rng.choice(MODELS)
    blocks: list[dict[str, str]] = []
    if draft.flags or rng.random() < 0.5:
        flags = draft.flags or [("--tensor-parallel-size", str(rng.choice((1, 2, 4, 8))))]
        lines = [
            f"# before: {draft.family.replace('_', ' ')} check fails",
            f"{repo.cli} {model} \\",
        ]
        body = [f"    {flag} {value}".rstrip() for flag, value in flags]
        if rng.random() < 0.5:
            body.insert(0, f"    --max-model-len {rng.choice((4096, 8192, 16384, 32768))}")
        lines += [b + " \\" for b in body[:-1]] + body[-1:]
        block = {"lang": "bash", "code": "\n".join(lines) + "\n"}
        if rng.random() < 0.3:
            block = {"caption": "Start the server with consistent options", **block}
        blocks.append(block)
    if draft.kwargs or rng.random() < 0.6:
        if draft.kwargs:
            kwargs = [f"    {k}={v}," for k, v in draft.kwargs]
            code = [
                "from vllm import LLM, SamplingParams",
                "",
                "llm = LLM(",
                f'    model="{model}",',
                *kwargs,
                ")",
                'out = llm.generate(["Hello"], SamplingParams(max_tokens=32))',
                "print(out[0].outputs[0].text)",
            ]
        else:
            opt = rng.choice(draft.names) if draft.names else "max_model_len"
            code = [
                "from vllm.engine.arg_utils import EngineArgs",
                "",
                f'args = EngineArgs(model="{model}")',
                "config = args.create_engine_config()  # raises early, before loading weights",
                f"print(config.{BY_NAME[opt].cfg if opt in BY_NAME else 'model_config'}.{opt})",
            ]
        blocks.append({"lang": "python", "code": "\n".join(code) + "\n"})
    if not blocks or (len(blocks) < 3 and rng.random() < 0.25):
        blocks.append(
            {
                "lang": "bash",
                "code": f"pip install -U {repo.module_prefix}\n"
                f"python -c 'import {repo.module_prefix}; "
                f"print({repo.module_prefix}.__version__)'\n",
            }
        )
    return blocks


def _analysis(
    rng: random.Random, draft: Invented, repo: RepoSpec, function: str, path: str
) -> dict[str, Any]:
    fill = {"product": repo.product, "function": function, "path": path, "env": repo.env_prefix}
    extra = list(_EXTRA_MEANING)
    rng.shuffle(extra)
    meaning = draft.meaning[: rng.randint(1, len(draft.meaning))]
    meaning += [s.format(**fill) for s in extra[: max(1, 4 - len(meaning) - rng.randrange(2))]]
    solutions = list(draft.solutions[: rng.randint(2, max(2, min(4, len(draft.solutions))))])
    while len(solutions) < 2 or (len(solutions) < 4 and rng.random() < 0.35):
        candidate = rng.choice(_EXTRA_SOLUTIONS).format(**fill)
        if candidate not in solutions:
            solutions.append(candidate)
    situations = draft.situations
    if rng.random() < 0.5:
        situations += " " + rng.choice(_EXTRA_SITUATIONS)
    text = " ".join(meaning)
    if rng.random() < 0.4:
        # Markdown with a paragraph break, as longer hand-written meanings have.
        text = " ".join(meaning[:2]) + "\n\n" + " ".join(meaning[2:]) if len(meaning) > 2 else text
    return {
        "meaning": text.strip() + ("\n" if "\n" in text else ""),
        "solutions": solutions,
        "example_fix": _fix_blocks(rng, draft, repo),
        "when": {"trigger": draft.trigger, "situations": situations},
    }


# --- Assembling the corpus -----------------------------------------------------------

_TAILS = (
    "Please disable it and try again.",
    "Please upgrade to the latest version.",
    "This will be supported in a future release.",
    "See the documentation for supported configurations.",
    "Consider using `{flag}` instead.",
    "Set `{flag}` to work around this.",
    "Falling back is not possible in this configuration.",
    "If you need this, please open an issue on GitHub.",
    "Run with `--enforce-eager` to rule out CUDA graph issues.",
    "Check the model's config.json.",
)
_SWAP_FAMILIES: tuple[Family, ...] = (fam_not_yet, fam_compare, fam_dtype, fam_platform)
_SIMPLE_NAME = re.compile(r"\{([A-Za-z_][\w.]*)\}")
_DATES = tuple(datetime.date(2026, 1, 1) + datetime.timedelta(days=d) for d in range(0, 365, 1))


@dataclass(slots=True)
class _Meta:
    """What generation knows about a record beyond its fields: for related entries."""

    family: str
    path: str
    group: int
    stated: bool
    analysed: bool


_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_NESTED = re.compile(r"\{[^{}]*\{")
_QUOTES = re.compile(r"[`'\"\u2018\u2019\u201c\u201d]")


def shape(message: str) -> str:
    """What a paste can tell of a template: its literal text, lowercased, without quotes or
    repeated whitespace, with every placeholder alike. Two templates of one shape cannot be
    told apart from a paste, so the corpus has distinct shapes except where one template
    is raised at several places."""
    if "{{" not in message and "}}" not in message and not _NESTED.search(message):
        text = _QUOTES.sub("", _PLACEHOLDER.sub("\x00", message).lower())
        return " ".join(text.split())
    parts = []
    for part in parse_template(message).parts:
        text = "\x00" if part.placeholder else _QUOTES.sub("", part.text.lower())
        parts.append(text)
    return " ".join("".join(parts).split())


def _fits(draft: Invented) -> bool:
    """Messages of a realistic length: a short heading to a couple of sentences."""
    low = 6 if draft.family == "heavy" else 24
    return low <= len(draft.message) <= 250


class _Builder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.records: list[dict[str, Any]] = []
        self.meta: list[_Meta] = []
        self.seen: dict[str, int] = {}
        self.next_line: dict[str, int] = {}
        self.groups = 0
        self.repo_weights = [r.weight for r in REPOS]
        self.family_weights = [w for _, w in FAMILIES]
        self._variants: list[Invented] = []
        self._messages: list[str] = []

    # choosing

    def repo(self) -> RepoSpec:
        return self.rng.choices(REPOS, self.repo_weights)[0]

    def family(self) -> Family:
        return self.rng.choices([f for f, _ in FAMILIES], self.family_weights)[0]

    def fresh(self, make: Callable[[], Invented | None], tries: int = 25) -> Invented | None:
        for _ in range(tries):
            draft = make()
            if draft is not None and shape(draft.message) not in self.seen and _fits(draft):
                return draft
        return None

    def exhausted(self, family: Family) -> None:
        """Stop choosing a family whose messages ran out (only for very large corpora)."""
        for index, (candidate, _) in enumerate(FAMILIES):
            if candidate is family:
                self.family_weights[index] = 0
        if not any(self.family_weights):
            raise RuntimeError("the message vocabulary is exhausted")

    def path(self, repo: RepoSpec, area: str) -> str:
        if repo.paths:
            return self.rng.choice(repo.paths)
        return self.rng.choice(VLLM_AREAS[area])

    def line(self, path: str, near: bool = False) -> int:
        if path not in self.next_line:
            self.next_line[path] = self.rng.randint(60, 240)
        step = self.rng.randint(8, 30) if near else self.rng.randint(14, 95)
        self.next_line[path] += step
        return self.next_line[path]

    # units

    def unit(self, room: int) -> None:
        r = self.rng.random()
        if room >= 2 and r < 0.016:
            self.siblings(room)
        elif room >= 2 and r < 0.032:
            self.shared(room)
        elif room >= 2 and r < 0.047:
            self.same_template(room)
        elif r < 0.075:
            self.single(fam_heavy)
        else:
            self.single(self.family())

    def single(self, family: Family) -> None:
        repo = self.repo()

        def make() -> Invented:
            draft = family(self.rng, repo)
            if draft.swap:
                draft = draft.with_slot(*self.rng.choice(draft.swap))
            if (
                self.rng.random() < 0.04
                and "{{" not in draft.message
                and "{" in draft.message
                and not re.search(r"\{(?![A-Za-z_][\w.]*\})", draft.message)
            ):
                draft.fmt_args = _SIMPLE_NAME.findall(draft.message)
                draft.message = _SIMPLE_NAME.sub("{}", draft.message)
            return draft

        draft = self.fresh(make)
        while draft is None:
            self.exhausted(family)
            family = self.family()
            draft = self.fresh(make)
        path = self.path(repo, draft.area)
        self.add(repo, draft, path, self.line(path), self.new_group(), False)

    def new_group(self) -> int:
        self.groups += 1
        return self.groups

    def siblings(self, room: int) -> None:
        """Templates that differ by one word, in one file."""
        repo = self.repo()

        def make() -> Invented | None:
            draft = self.rng.choice(_SWAP_FAMILIES)(self.rng, repo)
            if not draft.swap:
                return None
            k = min(room, self.rng.randint(2, 4), len(draft.swap))
            variants = [draft.with_slot(*w) for w in draft.swap[:k]]
            if any(shape(v.message) in self.seen for v in variants):
                return None
            self._variants = variants
            return draft

        draft = self.fresh(make, 200)
        if draft is None:
            return
        path = self.path(repo, draft.area)
        group = self.new_group()
        for variant in self._variants:
            self.add(repo, variant, path, self.line(path, near=True), group, False)

    def shared(self, room: int) -> None:
        """Templates sharing most of their words: one base message with different tails."""
        repo = self.repo()

        def make() -> Invented | None:
            draft = self.family()(self.rng, repo)
            if draft.swap:
                draft = draft.with_slot(*draft.swap[0])
            if not draft.message.endswith(".") or len(draft.message) > 160:
                return None
            flag = self.rng.choice(OPTIONS).flag
            tails = [t.format(flag=flag) for t in self.rng.sample(_TAILS, 3)]
            k = min(room, self.rng.randint(2, 3))
            first = [""] if self.rng.random() < 0.5 else []
            messages = [(draft.message + (" " + t if t else "")) for t in (first + tails)[:k]]
            if any(shape(m) in self.seen for m in messages):
                return None
            self._messages = messages
            return draft

        draft = self.fresh(make, 200)
        if draft is None:
            return
        path = self.path(repo, draft.area)
        group = self.new_group()
        for message in self._messages:
            variant = draft.with_slot("", "")
            variant.message = message
            self.add(repo, variant, path, self.line(path, near=True), group, False)

    def same_template(self, room: int) -> None:
        """One template (repo, exception, message) raised at 2-5 places; ids are stated."""
        repo = self.repo()
        family = self.family()

        def make() -> Invented:
            draft = family(self.rng, repo)
            if draft.swap:
                draft = draft.with_slot(*self.rng.choice(draft.swap))
            return draft

        draft = self.fresh(make)
        if draft is None:
            return
        k = min(room, self.rng.randint(2, 5))
        group = self.new_group()
        for _ in range(k):
            path = self.path(repo, draft.area)
            self.add(repo, draft, path, self.line(path), group, True)

    # records

    def add(
        self, repo: RepoSpec, draft: Invented, path: str, line: int, group: int, stated: bool
    ) -> None:
        rng = self.rng
        cls = _class_for(path)
        method = rng.choice(METHODS[draft.area])
        function = f"{cls}.{method}" if cls else method
        start, code = _excerpt(rng, draft, line, cls, method)
        record: dict[str, Any] = {}
        if stated:
            record["id"] = hashlib.sha256(f"{repo.name}/{path}:{line}".encode()).hexdigest()[:16]
        record["repo"] = repo.name
        record["exception"] = draft.exception
        record["message"] = draft.message
        analysed = rng.random() < 0.75
        prose = _analysis(rng, draft, repo, function, path) if analysed else {}
        if analysed:
            record["meaning"] = prose["meaning"]
        source: dict[str, Any] = {
            "commit": hashlib.sha1(repo.name.encode()).hexdigest(),
            "path": path,
            "line": line,
        }
        if rng.random() < 0.85:
            source["function"] = function
        source["excerpt"] = {"start": start, "code": code}
        record["source"] = source
        if analysed:
            record["solutions"] = prose["solutions"]
            record["example_fix"] = prose["example_fix"]
            record["when"] = prose["when"]
        key = shape(draft.message)
        self.seen[key] = self.seen.get(key, 0) + 1
        self.records.append(record)
        self.meta.append(_Meta(draft.family, path, group, stated, analysed))

    def relate(self) -> None:
        """Fill ``related`` (then ``analysis``) of analysed records, in place."""
        rng = self.rng
        by_group: dict[int, list[int]] = {}
        by_path: dict[str, list[int]] = {}
        by_family: dict[tuple[str, str], list[int]] = {}
        for index, meta in enumerate(self.meta):
            by_group.setdefault(meta.group, []).append(index)
            by_path.setdefault(meta.path, []).append(index)
            key = (self.records[index]["repo"], meta.family)
            by_family.setdefault(key, []).append(index)
        messages = sorted(r["message"] for r in self.records)
        for index, meta in enumerate(self.meta):
            record = self.records[index]
            if not meta.analysed:
                continue
            want = rng.randint(1, 5)
            chosen: list[int] = [i for i in by_group[meta.group] if i != index][:want]
            pools = (by_path[meta.path], by_family[(record["repo"], meta.family)])
            for pool in pools:
                for _ in range(want * 2):
                    if len(chosen) >= want or len(pool) < 2:
                        break
                    other = rng.choice(pool)
                    if other != index and other not in chosen:
                        chosen.append(other)
            entries: list[str] = []
            for other in chosen:
                target = self.records[other]
                if self.meta[other].stated:
                    entry = target["id"]
                elif target["message"] == record["message"]:
                    continue
                else:
                    entry = _cut(rng, target["message"], messages)
                if entry not in entries:
                    entries.append(entry)
            reordered = {k: v for k, v in record.items() if k not in ("related", "analysis")}
            if entries:
                reordered["related"] = entries
            reordered["analysis"] = {"by": "AI-assisted", "date": rng.choice(_DATES)}
            record.clear()
            record.update(reordered)


def _cut(rng: random.Random, message: str, messages: list[str]) -> str:
    """The message, or sometimes its start with an ellipsis when that names only it."""
    if len(message) < 60 or rng.random() < 0.75:
        return message
    stem = message[: rng.randint(40, 60)].rstrip()
    if len(stem) < 12:
        return message
    at = bisect.bisect_left(messages, stem)
    if at + 1 < len(messages) and messages[at + 1].startswith(stem):
        return message
    return stem + "…"


def generate(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` synthetic error records in errdex's record format, the same for the same seed."""
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    builder = _Builder(random.Random(seed))
    while len(builder.records) < n:
        builder.unit(n - len(builder.records))
    builder.relate()
    records = builder.records
    counts: dict[str, int] = {}
    first: dict[str, dict[str, Any]] = {}
    for record in records:
        key = shape(record["message"])
        counts[key] = counts.get(key, 0) + 1
        same = first.setdefault(key, record)
        assert same["message"] == record["message"], f"same shape: {record['message']!r}"
        assert same["exception"] == record["exception"] and same["repo"] == record["repo"]
    for record in records:
        if counts[shape(record["message"])] > 1:
            assert "id" in record, f"repeated message without a stated id: {record['message']!r}"
        else:
            assert "id" not in record
    ids = [r.get("id") or derive_id(r["repo"], r["exception"], r["message"]) for r in records]
    assert len(set(ids)) == len(ids), "two records share an id"
    return records


# --- Writing -------------------------------------------------------------------------


_SafeDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_SafeDumper):  # type: ignore[valid-type,misc]
    """The safe dumper (libyaml's when available), writing multi-line text as literal blocks
    like hand-written records."""


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _represent_str)


def dump_record(record: Mapping[str, Any]) -> str:
    """A record as YAML text; ``yaml.safe_load`` of it gives the record back."""
    return yaml.dump(dict(record), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)


def record_path(index: int, record: Mapping[str, Any]) -> str:
    """Where ``write_content`` puts a record, relative to the content folder."""
    return f"errors/{record['repo']}/{index:05d}.yaml"


def write_content(
    folder: Path, records: Sequence[Mapping[str, Any]], site_title: str = "Synthetic errors"
) -> None:
    """Write an errdex content folder: ``site.yaml`` and one YAML file per record."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    site = {
        "title": site_title,
        "description": "Synthetic error records for benchmarks.",
        "base_url": "https://bench.example.test/",
        "repository": "example/bench-site",
    }
    (folder / "site.yaml").write_text(dump_record(site), encoding="utf-8")
    made: set[Path] = set()
    for index, record in enumerate(records):
        path = folder / record_path(index, record)
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_text(dump_record(record), encoding="utf-8")


# --- Markdown pages for other static site generators --------------------------------


def page_slug(record: Mapping[str, Any]) -> str:
    """The page's slug: the record id, stated or derived the way errdex derives it."""
    stated = record.get("id")
    if isinstance(stated, str):
        return stated
    return derive_id(record["repo"], record["exception"], record["message"])


def related_slugs(records: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each related entry used in ``records`` → the slug of the page it names."""
    by_message: dict[str, list[str]] = {}
    for record in records:
        by_message.setdefault(record["message"], []).append(page_slug(record))
    ordered = sorted(by_message)
    out: dict[str, str] = {}
    for record in records:
        for entry in record.get("related", ()):
            if entry in out:
                continue
            if entry in by_message:
                out[entry] = by_message[entry][0]
                continue
            stem = entry.rstrip().removesuffix("…").rstrip()
            at = bisect.bisect_left(ordered, stem)
            if at < len(ordered) and ordered[at].startswith(stem):
                out[entry] = by_message[ordered[at]][0]
    return out


_MD_SPECIAL = re.compile(r"([\\`*_\[\]#|])")


def _md_text(text: str) -> str:
    """Plain text safe inside Markdown prose, headings and link text."""
    text = " ".join(text.split())
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _fence(code: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{code.rstrip(chr(10))}\n{ticks}\n"


def _front_value(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def markdown_page(
    record: Mapping[str, Any],
    slugs: Mapping[str, str] | None = None,
    front_matter: Literal["yaml", "pelican"] = "yaml",
) -> str:
    """One record as a Markdown page with front matter (title, date).

    Related entries link to ``../<slug>/``: ids are slugs already; message texts are
    looked up in ``slugs`` (see ``related_slugs``), or derived from this record's repo and
    exception when not given. ``front_matter="pelican"`` writes ``Title:``/``Date:``
    metadata lines instead of a YAML block.
    """
    display = record["message"].replace("{{", "{").replace("}}", "}")
    title = short_title(f"{record['exception'].rsplit('.', 1)[-1]}: {display}")
    analysis = record.get("analysis")
    date = analysis["date"] if analysis else datetime.date(2026, 1, 1)
    date_text = date.isoformat() if hasattr(date, "isoformat") else str(date)
    out: list[str] = []
    if front_matter == "pelican":
        out += [
            f"Title: {' '.join(title.split())}",
            f"Date: {date_text}",
            f"Slug: {page_slug(record)}",
            "",
        ]
    else:
        out += ["---", f"title: {_front_value(title)}", f"date: {date_text}", "---", ""]
    source = record["source"]
    out += [
        f"# {_md_text(title)}",
        "",
        f"`{record['exception']}` raised by `{record['repo']}`"
        + (f" in `{source['function']}`" if source.get("function") else "")
        + ".",
        "",
        _fence(display, "text"),
    ]
    if record.get("meaning"):
        out += ["## What it means", "", record["meaning"].strip(), ""]
    else:
        out += ["_This error has not been analysed yet._", ""]
    url = f"https://github.com/{record['repo']}/blob/{source['commit']}/{source['path']}#L{source['line']}"
    out += [
        "## Source",
        "",
        (
            f"[`{source['path']}` line {source['line']}]({url}), pinned to "
            f"`{str(source['commit'])[:10]}`."
        ),
        "",
    ]
    excerpt = source.get("excerpt")
    if excerpt:
        out += [
            f"Lines {excerpt['start']}-{excerpt['start'] + len(excerpt['code'].splitlines()) - 1}:",
            "",
            _fence(excerpt["code"], "python"),
        ]
    if record.get("solutions"):
        out += ["## Solutions", ""]
        out += [f"{i}. {' '.join(s.split())}" for i, s in enumerate(record["solutions"], 1)]
        out.append("")
    if record.get("example_fix"):
        out += ["## Example fix", ""]
        for block in record["example_fix"]:
            if block.get("caption"):
                out += [_md_text(block["caption"]), ""]
            out.append(_fence(block["code"], block["lang"]))
    when = record.get("when")
    if when:
        out += ["## When it happens", ""]
        if when.get("trigger"):
            out += [f"**Trigger:** {when['trigger']}", ""]
        if when.get("situations"):
            out += [f"**Common situations:** {when['situations']}", ""]
    if record.get("related"):
        out += ["## Related errors", ""]
        for entry in record["related"]:
            if re.fullmatch(r"[0-9a-f]{16}", entry):
                slug = entry
            elif slugs is not None and entry in slugs:
                slug = slugs[entry]
            else:
                slug = derive_id(record["repo"], record["exception"], entry)
            out.append(f"- [{_md_text(entry)}](../{slug}/)")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def markdown_pages(
    records: Sequence[Mapping[str, Any]], front_matter: Literal["yaml", "pelican"] = "yaml"
) -> dict[str, str]:
    """Every record as a Markdown page, by slug, with related links resolved."""
    slugs = related_slugs(records)
    return {page_slug(r): markdown_page(r, slugs, front_matter) for r in records}


GENERATED = 50_000
"""The most records one synthetic corpus holds before its vocabulary runs out."""


def generate_many(size: int, seed: int = 0) -> list[dict[str, Any]]:
    """``size`` synthetic records: above GENERATED, corpora of other seeds, each raised
    by a repository of its own (so no two records share an id)."""
    records: list[dict[str, Any]] = []
    part = 0
    while len(records) < size:
        more = generate(min(GENERATED, size - len(records)), seed=seed + part)
        if part:
            # Each record gets another id with its repository; related entries that name
            # an id of this part name its new one.
            old = [page_slug(r) for r in more]
            more = [{**r, "repo": f"{r['repo']}-{part}"} for r in more]
            for r in more:
                if "id" in r:  # a stated id (a message raised twice): one of this part's
                    r["id"] = hashlib.sha256(f"{part}:{r['id']}".encode()).hexdigest()[:16]
            renamed = dict(zip(old, (page_slug(r) for r in more), strict=True))
            for r in more:
                if "related" in r:
                    r["related"] = [renamed.get(entry, entry) for entry in r["related"]]
        records += more
        part += 1
    return records
