//! Labels of the step model's assumptions (`perf.device`, `perf.cudnn`, `perf.host`,
//! `perf.pipeline`) and of the run's input pipeline (`pipeline`), by Scenario path:
//! (path, English, 中文).

pub const STEP_LABELS: &[(&str, &str, &str)] = &[
    (
        "perf.device.conv_efficiency",
        "Tensor-core convolution efficiency (fraction of peak)",
        "张量核心卷积效率（峰值比例）",
    ),
    (
        "perf.device.fp32_conv_efficiency",
        "FP32 convolution efficiency (of peak, direct-convolution FLOPs: Winograd passes 1)",
        "FP32 卷积效率（按直接卷积 FLOPs 计的峰值比例，Winograd 可超过 1）",
    ),
    (
        "perf.device.conv3d_tensor_factor",
        "3-D conv on tensor cores, relative to 2-D",
        "张量核心 3-D 卷积相对 2-D 的效率",
    ),
    (
        "perf.device.conv3d_fp32_factor",
        "3-D conv on FP32 cores, relative to 2-D",
        "FP32 3-D 卷积相对 2-D 的效率",
    ),
    (
        "perf.device.conv3d_channels_half",
        "3-D conv: output channels at half rate (tensor cores)",
        "3-D 卷积：半速率时的输出通道数（张量核心）",
    ),
    (
        "perf.device.conv3d_fp32_channels_half",
        "3-D conv: output channels at half rate (FP32)",
        "3-D 卷积：半速率时的输出通道数（FP32）",
    ),
    (
        "perf.device.conv3d_depth_half",
        "3-D conv: input channels x kernel volume at half rate",
        "3-D 卷积：半速率时的输入通道数×卷积核体积",
    ),
    (
        "perf.device.grouped_efficiency",
        "Depthwise / grouped conv efficiency (fraction of FP32 peak)",
        "深度/分组卷积效率（FP32 峰值比例）",
    ),
    (
        "perf.device.grouped_depth_half",
        "Grouped conv: input channels per group x kernel area at half rate (FP32 cores)",
        "分组卷积：半速率时的每组输入通道数×卷积核面积（FP32 核）",
    ),
    (
        "perf.device.grouped_channels_half",
        "Grouped conv: output channels per group at half rate (tensor cores)",
        "分组卷积：半速率时的每组输出通道数（张量核心）",
    ),
    (
        "perf.device.conv_traffic",
        "Convolution memory traffic (x input + output + weights)",
        "卷积显存流量（输入+输出+权重的倍数）",
    ),
    (
        "perf.device.norm_passes",
        "Normalisation memory passes (x input + output)",
        "归一化显存遍数（输入+输出的倍数）",
    ),
    (
        "perf.device.transpose_passes",
        "NCHW transposes around 16-bit convs (passes)",
        "16 位卷积前后的 NCHW 转置（遍数）",
    ),
    (
        "perf.device.attention_score_passes",
        "Passes over attention scores",
        "注意力分数矩阵的读写遍数",
    ),
    (
        "perf.device.l2_speedup",
        "L2 bandwidth over memory bandwidth",
        "L2 带宽相对显存带宽倍数",
    ),
    (
        "perf.device.memory_issue_per_kib",
        "Warp instructions per KiB of memory traffic",
        "每 KiB 显存流量发出的 warp 指令数",
    ),
    (
        "perf.device.hopper_fused_attention_efficiency",
        "Fused attention (SDPA) on Hopper: share of peak",
        "Hopper 上融合注意力（SDPA）：达到峰值的比例",
    ),
    (
        "perf.device.channels_last",
        "Model in channels-last layout (NHWC)",
        "模型使用通道在后布局（NHWC）",
    ),
    (
        "perf.cudnn.heuristic_fp32_slowdown",
        "Untimed cuDNN FP32 3-D conv: slowdown over the timed one",
        "未计时 cuDNN FP32 3-D 卷积：相对计时选择的减速倍数",
    ),
    (
        "perf.cudnn.hopper_conv3d_fp32_factor",
        "3-D conv on Hopper's FP32 cores, relative to the fit",
        "Hopper FP32 核上的 3-D 卷积，相对拟合值",
    ),
    (
        "perf.cudnn.hopper_conv3d_tensor_factor",
        "3-D conv on Hopper's tensor cores, relative to the fit",
        "Hopper 张量核心上的 3-D 卷积，相对拟合值",
    ),
    (
        "perf.cudnn.hopper_conv2d_fp32_factor",
        "2-D conv on Hopper's FP32 cores, relative to the fit",
        "Hopper FP32 核上的 2-D 卷积，相对拟合值",
    ),
    (
        "perf.cudnn.hopper_conv2d_tensor_factor",
        "2-D conv on Hopper's tensor cores, relative to the fit",
        "Hopper 张量核心上的 2-D 卷积，相对拟合值",
    ),
    (
        "perf.cudnn.lowered_rate_fp32",
        "Narrow conv: lowered-operand reads, FP32 (x bandwidth)",
        "窄卷积：展开操作数读取速率，FP32（带宽的倍数）",
    ),
    (
        "perf.cudnn.lowered_rate_tensor",
        "Narrow conv: lowered-operand reads, tensor cores (x bandwidth)",
        "窄卷积：展开操作数读取速率，张量核心（带宽的倍数）",
    ),
    (
        "perf.cudnn.workspace_cuda_core",
        "cuDNN workspace, CUDA-core 3-D and FP32/TF32 2-D conv (x im2col)",
        "cuDNN 工作空间，CUDA 核 3-D 与 FP32/TF32 2-D 卷积（im2col 的倍数）",
    ),
    (
        "perf.cudnn.workspace_tensor_core",
        "cuDNN workspace, tensor-core 3-D conv (x im2col)",
        "cuDNN 工作空间，张量核心 3-D 卷积（im2col 的倍数）",
    ),
    (
        "perf.cudnn.rnn_workspace_per_step",
        "cuDNN RNN workspace per step",
        "cuDNN 循环层每步工作空间",
    ),
    (
        "perf.cudnn.rnn_persistent_efficiency",
        "RNN persistent kernel (x FP32 peak)",
        "循环层常驻内核（FP32 峰值倍数）",
    ),
    (
        "perf.host.op_forward_s",
        "CPU time per forward op (s)",
        "每个前向算子的 CPU 时间（秒）",
    ),
    (
        "perf.host.op_backward_s",
        "CPU time per backward op (s)",
        "每个反向算子的 CPU 时间（秒）",
    ),
    (
        "perf.host.optimizer_op_s",
        "CPU time per optimizer op and tensor, for loop (s)",
        "优化器逐张量循环每算子 CPU 时间（秒）",
    ),
    (
        "perf.host.foreach_tensor_s",
        "CPU time per tensor, foreach optimizer (s)",
        "foreach 优化器每张量 CPU 时间（秒）",
    ),
    (
        "perf.host.foreach",
        "Optimizer uses foreach (PyTorch >= 2.0)",
        "优化器使用 foreach（PyTorch ≥ 2.0）",
    ),
    (
        "perf.host.zero_grad_to_none",
        "Gradients dropped, not zeroed, each step",
        "每步丢弃梯度而非清零",
    ),
    (
        "perf.host.step_fixed_s",
        "CPU time per step: loss.item(), loop, logging (s)",
        "每步固定 CPU 时间：loss.item()、循环、日志（秒）",
    ),
    (
        "perf.host.rnn_weight_query_s",
        "CPU time per cuDNN RNN weight query (s)",
        "每次 cuDNN 循环层权重查询的 CPU 时间（秒）",
    ),
    (
        "perf.host.startup_s",
        "CUDA start-up per run (s)",
        "每次运行的 CUDA 启动时间（秒）",
    ),
    (
        "perf.pipeline.precut_sample_s",
        "Pre-cut patch: CPU time per sample (s)",
        "预切块：每样本 CPU 时间（秒）",
    ),
    (
        "perf.pipeline.cut_sample_s",
        "Patch cut from the cube: CPU time per sample (s)",
        "从数据立方体切块：每样本 CPU 时间（秒）",
    ),
    (
        "perf.pipeline.byte_s",
        "Collating a batch: CPU time per patch byte (s)",
        "批次整理：每字节块数据 CPU 时间（秒）",
    ),
    (
        "perf.pipeline.cut_byte_s",
        "Patch cut from the cube: CPU time per byte (s)",
        "从数据立方体切块：每字节 CPU 时间（秒）",
    ),
    (
        "perf.pipeline.augment_sample_s",
        "Augmentation CPU time per sample (s)",
        "数据增强每样本 CPU 时间（秒）",
    ),
    (
        "perf.pipeline.augment_byte_s",
        "Augmentation CPU time per byte (s)",
        "数据增强每字节 CPU 时间（秒）",
    ),
    (
        "perf.pipeline.batch_s",
        "Main process per batch from a worker (s)",
        "主进程接收 worker 每批时间（秒）",
    ),
    (
        "perf.pipeline.worker_byte_s",
        "Main process per byte from a worker (s)",
        "主进程接收 worker 数据每字节时间（秒）",
    ),
    (
        "perf.pipeline.shared_byte_s",
        "Worker per byte into shared memory (s)",
        "worker 写入共享内存每字节时间（秒）",
    ),
    (
        "perf.pipeline.pageable_factor",
        "Pageable copy rate (fraction of pinned)",
        "可分页内存拷贝速率（相对锁页比例）",
    ),
    (
        "perf.pipeline.pcie_efficiency",
        "Host-to-device copy efficiency (fraction of PCIe)",
        "主机到显卡拷贝效率（PCIe 比例）",
    ),
    (
        "perf.pipeline.gpu_gather_ops",
        "Ops per step to gather patches on the GPU",
        "在显卡上取块的每步算子数",
    ),
    (
        "pipeline.num_workers",
        "DataLoader workers",
        "DataLoader worker 数",
    ),
    (
        "pipeline.cores",
        "CPU cores for the run (empty = the CPU class's)",
        "本次训练可用 CPU 核数（留空按 CPU 类别）",
    ),
    (
        "pipeline.augmentation",
        "Augment patches (flips, rotations)",
        "数据增强（翻转、旋转）",
    ),
    (
        "pipeline.cube_on_gpu",
        "Keep the whole cube on the GPU",
        "整个数据立方体放在显卡上",
    ),
    (
        "pipeline.precut",
        "Patches cut once before training",
        "训练前一次性切好所有块",
    ),
    (
        "pipeline.pin_memory",
        "Pinned host memory for batches",
        "批数据使用锁页内存",
    ),
    (
        "pipeline.sync_every_step",
        "Sync every step (loss.item())",
        "每步同步（loss.item()）",
    ),
    (
        "pipeline.synthetic",
        "Synthetic batch already on the GPU (benchmarks)",
        "合成数据已在显卡上（基准测试）",
    ),
];
