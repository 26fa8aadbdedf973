/* advice: the rules, one table in one place.  Order: the system-level
 * rules (TraceLens, Nsight Systems, HTA), then PyTorch's pattern matcher in
 * its own order.  Each rule is one paragraph of docs/plugins/advice.md. */
#include "advice.h"

#define TRACELENS "TraceLens agent thresholds (AMD-AGI/TraceLens)"
#define NSYS "Nsight Systems expert rules (nsys analyze)"
#define TORCH "PyTorch pattern matcher (torch/profiler/_pattern_matcher.py)"

const adv_rule adv_rules[] = {
    {"gpu_idle", ADV_WARN, TRACELENS,
     "find what the GPU waits for (launch overhead, data loading, synchronisation) and overlap "
     "it with GPU work; larger batches or CUDA graphs shorten host-bound gaps",
     adv_gpu_idle},
    {"exposed_comm", ADV_WARN, TRACELENS,
     "overlap communication with computation (bucketed gradient all-reduce, prefetching "
     "all-gathers, a separate communication stream)",
     adv_exposed_comm},
    {"comm_overlap", ADV_WARN, TRACELENS,
     "issue collectives earlier or split them so computation runs while they do",
     adv_comm_overlap},
    {"memcpy_share", ADV_WARN, TRACELENS,
     "keep tensors on the device, batch small transfers, use pinned memory and non_blocking "
     "copies",
     adv_memcpy_share},
    {"gpu_gaps", ADV_WARN, NSYS,
     "look at what the host does in the gap (data loading, checkpointing, synchronisation, "
     "Python overhead)",
     adv_gpu_gaps},
    {"low_utilization", ADV_WARN, NSYS,
     "in the chunks named, find why the GPU is starved: host work, synchronisation, small "
     "kernels",
     adv_low_utilization},
    {"pageable_memcpy", ADV_WARN, NSYS,
     "copy from pinned memory (pin_memory=True in the DataLoader, tensor.pin_memory()) so "
     "copies run asynchronously",
     adv_pageable_memcpy},
    {"sync_memcpy", ADV_WARN, NSYS,
     "use asynchronous copies and memsets (cudaMemcpyAsync, tensor.to(..., non_blocking=True)) "
     "from pinned memory",
     adv_sync_memcpy},
    {"sync_api", ADV_WARN, NSYS,
     "remove synchronisations the program does not need (.item(), .cpu(), torch.cuda."
     "synchronize() in the loop); wait on events instead of the device",
     adv_sync_api},
    {"launch_outliers", ADV_WARN, "HTA kernel launch statistics (facebookresearch/"
                                  "HolisticTraceAnalysis)",
     "slow launch calls or GPU work shorter than its call: fewer, larger kernels (fusion, "
     "torch.compile) or CUDA graphs; late starts: the GPU queue is behind, look for a "
     "synchronisation or a long kernel before them",
     adv_launch_outliers},
    {"extra_cuda_copy", ADV_WARN, TORCH " ExtraCUDACopyPattern",
     "create the tensor on the device (torch.zeros(..., device=\"cuda\")) instead of filling it "
     "on the CPU and copying it",
     adv_extra_cuda_copy},
    {"for_loop_indexing", ADV_WARN, TORCH " ForLoopIndexingPattern",
     "vectorise the loop: index with a tensor of indices or a slice instead of one element at "
     "a time",
     adv_for_loop_indexing},
    {"fp32_matmul", ADV_WARN, TORCH " FP32MatMulPattern",
     "allow TF32 for float32 products: torch.set_float32_matmul_precision('high') or "
     "torch.backends.cuda.matmul.allow_tf32 = True (matmuls), torch.backends.cudnn.allow_tf32 "
     "= True (convolutions); or compute in bf16/fp16 (autocast)",
     adv_fp32_matmul},
    {"optimizer_single_tensor", ADV_WARN, TORCH " OptimizerSingleTensorPattern",
     "pass foreach=True to the optimizer (the multi-tensor implementation)",
     adv_optimizer_single_tensor},
    {"sync_dataloader", ADV_WARN, TORCH " SynchronizedDataLoaderPattern",
     "load data asynchronously: DataLoader(num_workers > 0)", adv_sync_dataloader},
    {"grad_not_none", ADV_WARN, TORCH " GradNotSetToNonePattern",
     "call zero_grad(set_to_none=True) so gradients are dropped instead of zeroed",
     adv_grad_not_none},
    {"conv_bias_bn", ADV_WARN, TORCH " Conv2dBiasFollowedByBatchNorm2dPattern",
     "create the Conv2d with bias=False: the BatchNorm2d after it cancels the bias",
     adv_conv_bias_bn},
    {"matmul_fp16_dims", ADV_WARN, TORCH " MatMulDimInFP16Pattern",
     "pad the matrices' last two dimensions to multiples of 8 so Tensor Cores run",
     adv_matmul_fp16_dims},
};
const size_t adv_nrules = sizeof adv_rules / sizeof adv_rules[0];
