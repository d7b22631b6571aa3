//! Names of the Scenario's values and labels of its assumption fields.

use super::Lang;

/// Names of the Scenario's enum values, the same in both languages where they are
/// technical names.
pub fn precision_name(p: hsi_gpu_core::scenario::Precision, lang: Lang) -> &'static str {
    use hsi_gpu_core::scenario::Precision::*;
    match (p, lang) {
        (TorchDefault, Lang::En) => "PyTorch default (TF32 conv)",
        (TorchDefault, Lang::Zh) => "PyTorch 默认（卷积 TF32）",
        (Fp32, _) => "FP32",
        (Tf32, _) => "TF32",
        (AmpFp16, Lang::En) => "AMP FP16",
        (AmpFp16, Lang::Zh) => "混合精度 FP16",
        (AmpBf16, Lang::En) => "AMP BF16",
        (AmpBf16, Lang::Zh) => "混合精度 BF16",
        (Bf16, Lang::En) => "pure BF16",
        (Bf16, Lang::Zh) => "纯 BF16",
    }
}

pub fn cpu_name(c: hsi_gpu_core::scenario::CpuClass, lang: Lang) -> &'static str {
    use hsi_gpu_core::scenario::CpuClass::*;
    match (c, lang) {
        (Laptop, Lang::En) => "Laptop (8 cores)",
        (Laptop, Lang::Zh) => "笔记本（8 核）",
        (Workstation, Lang::En) => "Workstation (16 cores)",
        (Workstation, Lang::Zh) => "工作站（16 核）",
        (Server, Lang::En) => "Server (64 cores)",
        (Server, Lang::Zh) => "服务器（64 核）",
    }
}

pub fn optimizer_name(o: hsi_gpu_core::scenario::Optimizer, lang: Lang) -> &'static str {
    use hsi_gpu_core::scenario::Optimizer::*;
    match (o, lang) {
        (Sgd, _) => "SGD",
        (SgdMomentum, Lang::En) => "SGD + momentum",
        (SgdMomentum, Lang::Zh) => "SGD + 动量",
        (Adam, _) => "Adam",
        (Adamw, _) => "AdamW",
    }
}

pub fn vit_size_name(size: hsi_gpu_core::scenario::VitSize) -> &'static str {
    use hsi_gpu_core::scenario::VitSize::*;
    match size {
        Small => "ViT-S",
        Base => "ViT-B",
        Large => "ViT-L",
        Huge => "ViT-H",
        Giant => "ViT-g",
    }
}

pub fn mode_name(m: hsi_gpu_core::scenario::ParallelMode, lang: Lang) -> &'static str {
    use hsi_gpu_core::scenario::ParallelMode::*;
    match (m, lang) {
        (Ddp, Lang::En) => "One run, data-parallel (DDP)",
        (Ddp, Lang::Zh) => "单次训练，数据并行（DDP）",
        (ParallelExperiments, Lang::En) => "Independent experiments, one per card",
        (ParallelExperiments, Lang::Zh) => "每卡一个独立实验",
    }
}

pub fn interconnect_name(i: hsi_gpu_core::scenario::Interconnect, lang: Lang) -> &'static str {
    use hsi_gpu_core::scenario::Interconnect::*;
    match (i, lang) {
        (Pcie, _) => "PCIe",
        (NvlinkBridge, Lang::En) => "NVLink bridge (pairs)",
        (NvlinkBridge, Lang::Zh) => "NVLink 桥接（两两）",
        (Nvswitch, Lang::En) => "NVLink / NVSwitch (SXM)",
        (Nvswitch, Lang::Zh) => "NVLink / NVSwitch（SXM）",
    }
}

pub fn sharding_name(s: hsi_gpu_core::scenario::Sharding, lang: Lang) -> &'static str {
    use hsi_gpu_core::scenario::Sharding::*;
    match (s, lang) {
        (None, Lang::En) => "None (DDP)",
        (None, Lang::Zh) => "不分片（DDP）",
        (Zero1, Lang::En) => "ZeRO-1: optimizer states",
        (Zero1, Lang::Zh) => "ZeRO-1：优化器状态",
        (Zero2, Lang::En) => "ZeRO-2: + gradients",
        (Zero2, Lang::Zh) => "ZeRO-2：+ 梯度",
        (Zero3, Lang::En) => "ZeRO-3: + parameters",
        (Zero3, Lang::Zh) => "ZeRO-3：+ 参数",
        (Fsdp, Lang::En) => "FSDP, full shard",
        (Fsdp, Lang::Zh) => "FSDP 完全分片",
    }
}

pub fn node_link_name(l: hsi_gpu_core::scenario::NodeLink, lang: Lang) -> &'static str {
    use hsi_gpu_core::scenario::NodeLink::*;
    match (l, lang) {
        (Eth25, Lang::En) => "Ethernet 25 Gb/s (TCP)",
        (Eth25, Lang::Zh) => "以太网 25 Gb/s（TCP）",
        (Eth100, Lang::En) => "Ethernet 100 Gb/s (TCP)",
        (Eth100, Lang::Zh) => "以太网 100 Gb/s（TCP）",
        (Roce100, Lang::En) => "RoCE 100 Gb/s (RDMA)",
        (Roce100, Lang::Zh) => "RoCE 100 Gb/s（RDMA）",
        (Roce200, Lang::En) => "RoCE 200 Gb/s (RDMA)",
        (Roce200, Lang::Zh) => "RoCE 200 Gb/s（RDMA）",
        (IbHdr, Lang::En) => "InfiniBand HDR 200 Gb/s",
        (IbHdr, Lang::Zh) => "InfiniBand HDR（200 Gb/s）",
        (IbNdr, Lang::En) => "InfiniBand NDR 400 Gb/s",
        (IbNdr, Lang::Zh) => "InfiniBand NDR（400 Gb/s）",
    }
}

pub fn currency_name(c: hsi_gpu_core::choices::Currency, lang: Lang) -> &'static str {
    use hsi_gpu_core::choices::Currency::*;
    match (c, lang) {
        (Usd, Lang::En) => "US dollars (USD)",
        (Usd, Lang::Zh) => "美元（USD）",
        (Cny, Lang::En) => "Chinese yuan (CNY)",
        (Cny, Lang::Zh) => "人民币（CNY）",
    }
}

/// The choices of an enum field drawn by the generic field controls (the assumptions, the
/// advanced group), by Scenario path: (id, label) in the reader's language. Every enum in
/// those sections needs its entry (a test walks them), so none is left a text box.
pub fn choice_labels(path: &str, lang: Lang) -> Option<Vec<(&'static str, &'static str)>> {
    use hsi_gpu_core::choices::Currency;
    use hsi_gpu_core::scenario::{NodeLink, Sharding};
    Some(match path {
        "cost.currency" => Currency::ALL
            .iter()
            .map(|c| (c.id(), currency_name(*c, lang)))
            .collect(),
        "sharding" => Sharding::ALL
            .iter()
            .map(|s| (s.id(), sharding_name(*s, lang)))
            .collect(),
        "node_link" => NodeLink::ALL
            .iter()
            .map(|l| (l.id(), node_link_name(*l, lang)))
            .collect(),
        _ => return None,
    })
}

/// A catalog figure's name in words (`GpuSpec::unverified`, `Dataset::unverified` list
/// them by field name); an unknown one stays as it is.
pub fn catalog_field_name(field: &str, lang: Lang) -> &str {
    const NAMES: &[(&str, &str, &str)] = &[
        ("memory_bytes", "memory size", "显存容量"),
        ("bandwidth_bytes_per_s", "memory bandwidth", "显存带宽"),
        ("fp32_flops", "FP32 compute", "FP32 算力"),
        ("tf32_flops", "TF32 compute", "TF32 算力"),
        (
            "fp16_tensor_flops",
            "FP16 tensor-core compute",
            "FP16 张量核心算力",
        ),
        ("nvlink", "NVLink support", "NVLink 支持"),
        ("pcie_p2p", "PCIe peer-to-peer", "PCIe 点对点传输"),
        ("tdp_watts", "power draw", "功耗"),
        ("ecc", "ECC support", "ECC 支持"),
        ("launch_price_usd", "launch price", "首发价格"),
        ("labeled_pixels", "labelled pixel count", "标注像素数"),
    ];
    NAMES
        .iter()
        .find(|(name, _, _)| *name == field)
        .map_or(field, |(_, en, zh)| match lang {
            Lang::En => en,
            Lang::Zh => zh,
        })
}

/// Labels of the memory, workload, perf and cost assumptions, by Scenario path:
/// (path, English, 中文). A table (data) rather than a match (code).
const FIELD_LABELS: &[(&str, &str, &str)] = &[
    ("mae.mask_ratio", "MAE mask ratio", "MAE 掩码比例"),
    ("mae.decoder_dim", "MAE decoder width", "MAE 解码器宽度"),
    ("mae.decoder_depth", "MAE decoder blocks", "MAE 解码器块数"),
    (
        "memory.headroom",
        "Headroom kept free (fraction)",
        "预留余量（比例）",
    ),
    (
        "memory.cuda_context_bytes",
        "CUDA context (bytes)",
        "CUDA 上下文（字节）",
    ),
    (
        "memory.fragmentation",
        "Allocator fragmentation (fraction)",
        "分配器碎片（比例）",
    ),
    (
        "memory.driver_reserved_bytes",
        "Driver-reserved memory (bytes)",
        "驱动保留显存（字节）",
    ),
    (
        "memory.ecc_bandwidth_loss",
        "Bandwidth lost to GDDR ECC when on (fraction)",
        "开启 GDDR ECC 时损失的带宽（比例）",
    ),
    (
        "workload.train_fraction",
        "Training fraction of labeled pixels",
        "训练样本比例",
    ),
    ("workload.epochs", "Epochs", "训练轮数"),
    ("workload.sweep_runs", "Runs in a sweep", "超参搜索次数"),
    (
        "workload.grad_accum_steps",
        "Gradient-accumulation steps",
        "梯度累积步数",
    ),
    (
        "perf.compute_efficiency",
        "GEMM efficiency of large kernels (fraction of peak)",
        "大矩阵乘内核效率（峰值比例）",
    ),
    (
        "perf.efficiency_ramp_s",
        "Work for half efficiency (seconds at peak)",
        "达到一半效率所需工作量（峰值下秒数）",
    ),
    (
        "perf.memory_efficiency",
        "Memory-bandwidth efficiency (fraction)",
        "显存带宽效率（比例）",
    ),
    (
        "perf.kernel_launch_s",
        "Least GPU time per kernel (s)",
        "单个内核最短 GPU 时间（秒）",
    ),
    (
        "perf.optimizer_kernels",
        "Kernels per optimizer update (empty = default)",
        "每次优化器更新的内核数（留空为默认）",
    ),
    (
        "perf.scaling.pcie_efficiency",
        "PCIe ring efficiency (fraction)",
        "PCIe 环形通信效率（比例）",
    ),
    (
        "perf.scaling.host_staged_factor",
        "Bandwidth factor without peer-to-peer",
        "无 P2P 时的带宽系数",
    ),
    (
        "perf.scaling.nvlink_efficiency",
        "NVLink ring efficiency (fraction)",
        "NVLink 环形通信效率（比例）",
    ),
    (
        "perf.scaling.hop_latency_s",
        "Latency per ring step (s)",
        "环形每步延迟（秒）",
    ),
    (
        "perf.scaling.bucket_bytes",
        "DDP bucket size (bytes)",
        "DDP 桶大小（字节）",
    ),
    (
        "perf.scaling.first_bucket_bytes",
        "DDP first bucket size (bytes)",
        "DDP 首个桶大小（字节）",
    ),
    (
        "perf.scaling.overlap",
        "All-reduce overlap with backward (0-1)",
        "All-reduce 与反向重叠程度（0-1）",
    ),
    (
        "perf.scaling.bucket_overhead_s",
        "DDP cost per bucket and step (s)",
        "DDP 每桶每步开销（秒）",
    ),
    (
        "perf.scaling.straggler_fraction",
        "Wait for the slowest card, per doubling (fraction of step)",
        "等待最慢显卡的开销，每翻倍（占步长比例）",
    ),
    (
        "cost.card_price_usd",
        "Card price (USD; empty = dated street or launch price)",
        "显卡单价（美元；留空用目录中的市场价或首发价）",
    ),
    (
        "cost.bridge_usd_per_pair",
        "NVLink bridge(s) per bridged pair (USD; empty = dated catalog price)",
        "每对显卡的 NVLink 桥（美元；留空用目录中的标价）",
    ),
    (
        "cost.platform_base_usd",
        "Workstation without GPUs (USD)",
        "不含显卡的工作站（美元）",
    ),
    (
        "cost.platform_per_card_usd",
        "Extra host RAM/storage per card (USD)",
        "每卡额外内存/存储（美元）",
    ),
    (
        "cost.multi_gpu_platform_usd",
        "Premium for more than two cards (USD)",
        "两卡以上平台溢价（美元）",
    ),
    (
        "cost.system_base_watts",
        "System power without GPUs (W)",
        "不含显卡的系统功耗（瓦）",
    ),
    (
        "cost.psu_margin",
        "PSU capacity over draw (factor)",
        "电源容量裕度（倍数）",
    ),
    (
        "cost.psu_usd_per_watt",
        "PSU price (USD per W)",
        "电源价格（美元/瓦）",
    ),
    (
        "cost.cooling_usd_per_card",
        "Cooling per card (USD)",
        "每卡散热（美元）",
    ),
    (
        "cost.electricity_usd_per_kwh",
        "Electricity (USD per kWh)",
        "电价（美元/千瓦时）",
    ),
    (
        "cost.pue",
        "Cooling overhead on power (PUE)",
        "制冷能耗系数（PUE）",
    ),
    (
        "cost.utilization",
        "Fraction of the lifetime training (0-1)",
        "训练时间占比（0-1）",
    ),
    ("cost.lifetime_years", "Lifetime (years)", "使用年限（年）"),
    (
        "cost.ops_hours_per_month",
        "Administration, one card (h/month)",
        "单卡运维（小时/月）",
    ),
    (
        "cost.ops_hours_per_month_per_extra_card",
        "Administration per extra card (h/month)",
        "每增加一卡的运维（小时/月）",
    ),
    (
        "cost.ops_usd_per_hour",
        "Engineer-hour (USD)",
        "工程师时薪（美元）",
    ),
    (
        "cost.cloud_usd_per_gpu_hour",
        "Cloud rental (USD per GPU-hour; empty = catalog rate)",
        "云租用（美元/GPU 小时；留空用目录价）",
    ),
    ("cost.cny_per_usd", "CNY per USD", "人民币/美元汇率"),
    ("cost.currency", "Costs shown in", "成本显示币种"),
    (
        "cost.chassis_slots",
        "Workstation expansion slots",
        "工作站扩展槽位数",
    ),
    (
        "cost.max_psu_watts",
        "Largest single PSU (W)",
        "单个电源最大功率（瓦）",
    ),
    (
        "cost.network_usd_per_nic",
        "Network port between nodes: NIC, switch port, cable (USD)",
        "节点间网络端口：网卡、交换机端口、线缆（美元）",
    ),
    ("sharding", "Sharding of the model states", "模型状态分片"),
    (
        "offload",
        "Optimizer states offloaded to the CPU",
        "优化器状态卸载到 CPU",
    ),
    (
        "nodes",
        "Nodes (a data-parallel run)",
        "节点数（数据并行训练）",
    ),
    ("node_link", "Network between nodes", "节点间网络"),
    ("nics_per_node", "NICs per node", "每节点网卡数"),
    (
        "tensor_parallel",
        "Tensor parallel (1-8 cards: heads and MLP split, Megatron)",
        "张量并行（1-8 卡：注意力头与 MLP 切分，Megatron）",
    ),
    (
        "pipeline_parallel",
        "Pipeline stages (1-8; cards = data x tensor x pipeline)",
        "流水线级数（1-8；卡数 = 数据 x 张量 x 流水线）",
    ),
    (
        "micro_batches",
        "Micro-batches per step (1F1B; bubble (p-1)/(m+p-1))",
        "每步微批次数（1F1B；气泡 (p-1)/(m+p-1)）",
    ),
    (
        "perf.scaling.network_efficiency",
        "Node network efficiency (fraction of line rate; empty = the link's)",
        "节点间网络效率（线速比例；留空用该网络的默认值）",
    ),
    (
        "perf.scaling.network_latency_s",
        "Node network latency per step (s; empty = the link's)",
        "节点间网络每步延迟（秒；留空用该网络的默认值）",
    ),
    (
        "perf.scaling.cpu_adam_params_per_s",
        "CPU Adam with offload (parameters/s per node)",
        "卸载时 CPU Adam 速度（每节点参数/秒）",
    ),
    (
        "perf.scaling.zero_bucket_elements",
        "ZeRO bucket (elements)",
        "ZeRO 通信桶大小（元素数）",
    ),
];

/// A Scenario field's name for people (errors, link notices): the scenario panel's label
/// for its inputs, else the assumption's label (`field_label`).
pub fn field_name(path: &str, lang: Lang) -> String {
    use super::T;
    let panel = match path {
        "bands" => T::Bands,
        "patch" => T::Patch,
        "classes" => T::Classes,
        "batch_per_gpu" => T::Batch,
        "cards" => T::Cards,
        "gpu" => T::Gpu,
        "dataset" => T::Dataset,
        "precision" => T::Precision,
        "optimizer" => T::Optimizer,
        "interconnect" => T::Interconnect,
        "checkpointing" => T::Checkpointing,
        "cpu" => T::Cpu,
        "attention" => T::Attention,
        "pipeline.num_workers" => T::Workers,
        "pipeline.cube_on_gpu" => T::CubeOnGpu,
        "workload.mode" => T::Mode,
        p if p.starts_with("model") => T::Model,
        p if p.starts_with("finetune") => T::FineTune,
        _ => return field_label(path, lang),
    };
    panel.get(lang).into()
}

/// Label of an assumption field by its Scenario path; unknown paths show the path itself,
/// so a field the core adds later is still editable.
pub fn field_label(path: &str, lang: Lang) -> String {
    let known = FIELD_LABELS
        .iter()
        .chain(super::step_labels::STEP_LABELS)
        .find(|(p, _, _)| *p == path);
    match (known, lang) {
        (Some((_, en, _)), Lang::En) => (*en).into(),
        (Some((_, _, zh)), Lang::Zh) => (*zh).into(),
        (None, _) => path.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unsourced_catalog_figure_is_named_in_words() {
        let fields = hsi_gpu_core::gpu::GPUS
            .iter()
            .flat_map(|g| g.unverified.iter())
            .chain(
                hsi_gpu_core::dataset::DATASETS
                    .iter()
                    .flat_map(|d| d.unverified.iter()),
            );
        for field in fields {
            for lang in [Lang::En, Lang::Zh] {
                assert_ne!(catalog_field_name(field, lang), *field, "{field} {lang:?}");
            }
        }
    }
}
