//! English / 中文 strings. Every key carries both texts, so a string cannot be added in
//! one language only. Sentences with figures are functions taking pre-formatted figures.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// Value for `<html lang>`.
    pub fn html_lang(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }

    pub fn from_code(code: &str) -> Option<Lang> {
        match code {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }

    /// From `navigator.language` ("zh-CN", "zh-TW", "en-US", ...): Chinese for any zh-*.
    pub fn from_browser(tag: &str) -> Lang {
        if tag.to_ascii_lowercase().starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Zh,
            Lang::Zh => Lang::En,
        }
    }
}

macro_rules! texts {
    ($($key:ident => $en:literal, $zh:literal;)*) => {
        /// A UI string.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum T { $($key),* }

        impl T {
            pub const ALL: &'static [T] = &[$(T::$key),*];

            pub fn get(self, lang: Lang) -> &'static str {
                match (self, lang) {
                    $((T::$key, Lang::En) => $en, (T::$key, Lang::Zh) => $zh,)*
                }
            }
        }
    };
}

texts! {
    Title => "HSI GPU Planner", "高光谱 GPU 规划器";
    Tagline => "Will this hyperspectral model fit on this GPU, how fast does it train, how does it scale and what does it cost?",
        "这个高光谱模型能否放进这块 GPU？训练多快？多卡如何扩展？成本多少？";
    EstimatesNote => "All figures are estimates from an analytic model (shapes, FLOPs, datasheet peaks and the assumptions below), not measurements. Check them with torch.cuda.max_memory_allocated() on your machine.",
        "所有数字均为解析模型（张量形状、FLOPs、官方规格峰值与下方假设）的估算值，并非实测。请在自己的机器上用 torch.cuda.max_memory_allocated() 核对。";
    LanguageToggle => "中文", "English";
    LanguageToggleLabel => "Switch language to Chinese", "切换到英文";
    Presentation => "Presentation mode", "演示模式";
    CopyLink => "Copy link", "复制链接";
    LinkCopied => "Link copied", "链接已复制";
    LinkInAddressBar => "Copy the address bar", "请复制地址栏";
    OpenFull => "Open the full planner", "打开完整版";
    Reset => "Reset to defaults", "恢复默认";
    Inputs => "Scenario", "场景";
    Dataset => "Dataset", "数据集";
    Model => "Model", "模型";
    Gpu => "GPU", "GPU";
    Bands => "Spectral bands", "光谱波段数";
    Patch => "Spatial patch size", "空间块大小";
    Classes => "Classes", "类别数";
    Batch => "Batch per GPU", "每卡批大小";
    Precision => "Precision", "精度";
    Optimizer => "Optimizer", "优化器";
    Cards => "Cards", "显卡数量";
    Interconnect => "Interconnect", "互联";
    Mode => "Use of the cards", "多卡用法";
    ModelSize => "Model size", "模型规模";
    Unverified => "Figures without a primary source (treat with care)", "缺少一手来源的数据（请谨慎参考）";
    Checkpointing => "Activation checkpointing", "激活检查点";
    UnitPixels => "px", "像素";
    UnitBands => "bands", "波段";
    Assumptions => "Assumptions (editable)", "假设（可修改）";
    AssumptionsHelp => "Constants that cannot be derived from the model; each default is documented with its source in the core. Changing one updates every figure.",
        "无法从模型推导的常数；每个默认值及其来源都记录在核心代码中。修改后所有数字随之更新。";
    InvalidValue => "not a valid value", "数值无效";
    Notices => "Some link parameters were not used", "部分链接参数未被采用";
    NoticeFallback => "the default is used instead", "已改用默认值";
    Dismiss => "Dismiss", "关闭";
    Errors => "This scenario cannot be estimated", "无法估算此场景";
    Allowed => "allowed", "允许";
    Memory => "Memory per GPU", "每卡显存";
    MemoryHelp => "Stacked terms of the peak memory on one card; the line marks the usable capacity, the dashed line the capacity less the headroom you keep free.",
        "单卡峰值显存的各组成部分；实线为可用容量，虚线为扣除预留余量后的容量。";
    TotalMemory => "Total", "合计";
    Capacity => "Capacity", "容量";
    HeadroomLine => "Capacity less headroom", "扣除余量后";
    MaxBatch => "Largest batch that fits (with headroom)", "可容纳的最大批大小（含余量）";
    TermContext => "CUDA context", "CUDA 上下文";
    TermWeights => "Weights", "权重";
    TermGradients => "Gradients", "梯度";
    TermOptimizer => "Optimizer states", "优化器状态";
    TermActivations => "Activations", "激活";
    TermTransient => "Transient", "临时张量";
    TermAllocator => "Allocator overhead", "分配器开销";
    Verdict => "Verdict", "结论";
    Fits => "fits", "可以放下";
    DoesNotFit => "does not fit", "放不下";
    Layers => "Per-layer breakdown", "逐层明细";
    LaunchBound => "limited by kernel launches", "受内核启动开销限制";
    Layer => "Layer", "层";
    Kind => "Type", "类型";
    OutputShape => "Output shape", "输出形状";
    Params => "Parameters", "参数量";
    FwdFlops => "Forward FLOPs (batch)", "前向 FLOPs（整批）";
    Saved => "Kept for backward", "反向保留";
    FwdTime => "Forward time", "前向时间";
    BwdTime => "Backward time", "反向时间";
    Limiter => "Forward limited by", "前向瓶颈";
    Warnings => "Remarks", "备注";
    Roofline => "Roofline", "屋顶线模型";
    Scaling => "Scaling over cards", "多卡扩展";
    Cost => "Cost", "成本";
    MemoryBound => "memory-bound", "受带宽限制";
    ComputeBound => "compute-bound", "受算力限制";
    WholeStep => "Whole training step", "整个训练步";
    RooflineHint => "Hover over or tab to a point to see its layer and why it is bound.",
        "将鼠标悬停或用 Tab 键移到某点，查看对应的层及其瓶颈原因。";
    PeakCompute => "Compute roof", "算力上限";
    Bandwidth => "Memory bandwidth", "显存带宽";
    Ridge => "Ridge point", "拐点";
    IntensityAxis => "Arithmetic intensity (FLOP per byte of device memory traffic)", "算术强度（每字节显存访问的 FLOP）";
    RoofPrecision => "Roof of the chosen precision", "所选精度的上限";
    RoofFp32 => "FP32 CUDA-core roof (element-wise layers)", "FP32 CUDA 核心上限（逐元素层）";
    Speed => "Speed", "速度";
    StepTime => "Step time", "单步时间";
    Throughput => "Samples", "样本";
    EpochTime => "Epoch", "每轮";
    Speedup => "Speedup", "加速比";
    Efficiency => "Scaling efficiency", "扩展效率";
    AllreduceShare => "All-reduce share of the step", "All-reduce 占单步时间";
    ParallelExperiments => "Independent experiments, one per card", "每卡一个独立实验";
    Ideal => "Ideal (linear)", "理想（线性）";
    Tco => "Total cost of ownership", "总拥有成本";
    TcoCaption => "Purchase, power and operations over the lifetime in the assumptions.", "按假设中的使用年限计算的购置、电费与运维成本。";
    PerGpuHour => "Per GPU-hour", "每 GPU 小时";
    SweepWall => "Sweep wall time", "超参搜索总耗时";
    CostCards => "Cards", "显卡";
    CostPlatform => "Platform (board, CPU, RAM, chassis)", "平台（主板、CPU、内存、机箱）";
    CostPsu => "Power supply", "电源";
    CostCooling => "Cooling", "散热";
    CostEnergy => "Electricity", "电费";
    CostOps => "Operations time", "运维人力";
    PerMillionSamples => "Per million training samples", "每百万训练样本";
    PerExperiment => "Per experiment (one run)", "每次实验（一次训练）";
    PerSweep => "Per sweep", "每轮超参搜索";
    OwnBox => "This box", "自建";
    Cloud => "Cloud rental", "云租用";
    LoadModel => "Your model (layer list from tools/export_model.py, or a scenario JSON)", "自己的模型（tools/export_model.py 导出的层列表，或场景 JSON）";
    ComparisonFile => "this is a comparison: import it in the comparison view below", "这是一个对比文件：请在下方的对比视图中导入";
    Custom => "custom", "自定义";
    Measured => "Measured vs estimated", "实测与估算对比";
    MeasuredHelp => "Load the JSON that tools/measure.py writes on a CUDA machine (see the README). Each figure is set beside the estimate for the scenario as measured: one card, the measurement's batch, geometry and precision. Error = (estimate − measured) / measured; positive means the estimate is high.",
        "载入 tools/measure.py 在 CUDA 机器上写出的 JSON（见 README）。每项实测值与按实测条件（单卡、实测的批大小、尺寸与精度）得到的估算值并列。误差 =（估算 − 实测）/ 实测，正值表示估算偏高。";
    LoadMeasurements => "Measurement files", "测量文件";
    PasteMeasurement => "…or paste measurement JSON here", "……或在此粘贴测量 JSON";
    LoadPasted => "Load pasted JSON", "载入粘贴的 JSON";
    Pasted => "pasted", "粘贴内容";
    Calibrate => "Calibrate to these measurements", "按这些测量校准";
    CalibrateHelp => "Fits the CUDA context, allocator fragmentation, driver-reserved memory and one speed factor for the efficiencies to the loaded measurements, and puts them in the scenario.",
        "根据已载入的测量拟合 CUDA 上下文、分配器碎片、驱动保留显存以及效率的统一速度系数，并写入场景。";
    ClearMeasurements => "Clear measurements", "清除测量";
    CannotCalibrate => "Cannot calibrate:", "无法校准：";
    MeasuredFigure => "Figure", "指标";
    Estimated => "Estimated", "估算";
    MeasuredValue => "Measured", "实测";
    ErrorPct => "Error", "误差";
    NothingToCompare => "This file has no CUDA figure to compare (a dry run records the structure only).", "此文件没有可对比的 CUDA 数据（试运行只记录结构）。";
    Calibrated => "Calibrated constants", "校准后的常数";
    CalibratedHelp => "The fitted constants are now in the scenario: in the link, in storage and under Assumptions, and every figure on the page uses them. Hover over a constant to see how it was fitted.",
        "拟合出的常数已写入场景：链接、本地存储与“假设”中都已更新，页面上所有数字都使用它们。将鼠标悬停在常数上可查看拟合方法。";
    Constant => "Constant", "常数";
    Before => "Before", "校准前";
    After => "After", "校准后";
    FromMeasurements => "Measurements used", "所用测量数";
    MeanErrorCaption => "Mean |error| over the loaded measurements", "已载入测量的平均绝对误差";
    UndoCalibration => "Undo calibration", "撤销校准";
    PriceUnknown => "No price is known for this card: cards count as $0. Enter one under Assumptions (cost.card_price_usd).",
        "此显卡价格未知，按 $0 计。请在“假设”中填写 cost.card_price_usd。";
}

/// Names of the Scenario's enum values, the same in both languages where they are
/// technical names.
pub fn precision_name(p: hsi_gpu_core::scenario::Precision, lang: Lang) -> &'static str {
    use hsi_gpu_core::scenario::Precision::*;
    match (p, lang) {
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

/// Label of an assumption field by its Scenario path; unknown paths show the path itself,
/// so a field the core adds later is still editable.
pub fn field_label(path: &str, lang: Lang) -> String {
    let known: Option<(&str, &str)> = match path {
        "memory.headroom" => Some(("Headroom kept free (fraction)", "预留余量（比例）")),
        "memory.cuda_context_bytes" => Some(("CUDA context (bytes)", "CUDA 上下文（字节）")),
        "memory.fragmentation" => {
            Some(("Allocator fragmentation (fraction)", "分配器碎片（比例）"))
        }
        "memory.driver_reserved_bytes" => {
            Some(("Driver-reserved memory (bytes)", "驱动保留显存（字节）"))
        }
        "workload.train_fraction" => Some(("Training fraction of labeled pixels", "训练样本比例")),
        "workload.epochs" => Some(("Epochs", "训练轮数")),
        "workload.sweep_runs" => Some(("Runs in a sweep", "超参搜索次数")),
        "workload.grad_accum_steps" => Some(("Gradient-accumulation steps", "梯度累积步数")),
        "perf.compute_efficiency" => Some((
            "Compute efficiency of large kernels (fraction of peak)",
            "大内核算力效率（峰值比例）",
        )),
        "perf.efficiency_ramp_s" => Some((
            "Work for half efficiency (seconds at peak)",
            "达到一半效率所需工作量（峰值下秒数）",
        )),
        "perf.memory_efficiency" => Some((
            "Memory-bandwidth efficiency (fraction)",
            "显存带宽效率（比例）",
        )),
        "perf.kernel_launch_s" => Some(("Least time per kernel (s)", "单个内核最短时间（秒）")),
        "perf.optimizer_kernels" => Some((
            "Kernels per optimizer update (empty = default)",
            "每次优化器更新的内核数（留空为默认）",
        )),
        "perf.scaling.pcie_efficiency" => Some((
            "PCIe ring efficiency (fraction)",
            "PCIe 环形通信效率（比例）",
        )),
        "perf.scaling.host_staged_factor" => Some((
            "Bandwidth factor without peer-to-peer",
            "无 P2P 时的带宽系数",
        )),
        "perf.scaling.nvlink_efficiency" => Some((
            "NVLink ring efficiency (fraction)",
            "NVLink 环形通信效率（比例）",
        )),
        "perf.scaling.hop_latency_s" => Some(("Latency per ring step (s)", "环形每步延迟（秒）")),
        "perf.scaling.bucket_bytes" => Some(("DDP bucket size (bytes)", "DDP 桶大小（字节）")),
        "perf.scaling.first_bucket_bytes" => {
            Some(("DDP first bucket size (bytes)", "DDP 首个桶大小（字节）"))
        }
        "perf.scaling.overlap" => Some((
            "All-reduce overlap with backward (0-1)",
            "All-reduce 与反向重叠程度（0-1）",
        )),
        "cost.card_price_usd" => Some((
            "Card price (USD; empty = catalog price)",
            "显卡单价（美元；留空用目录价）",
        )),
        "cost.platform_base_usd" => {
            Some(("Workstation without GPUs (USD)", "不含显卡的工作站（美元）"))
        }
        "cost.platform_per_card_usd" => Some((
            "Extra host RAM/storage per card (USD)",
            "每卡额外内存/存储（美元）",
        )),
        "cost.multi_gpu_platform_usd" => Some((
            "Premium for more than two cards (USD)",
            "两卡以上平台溢价（美元）",
        )),
        "cost.system_base_watts" => {
            Some(("System power without GPUs (W)", "不含显卡的系统功耗（瓦）"))
        }
        "cost.psu_margin" => Some(("PSU capacity over draw (factor)", "电源容量裕度（倍数）")),
        "cost.psu_usd_per_watt" => Some(("PSU price (USD per W)", "电源价格（美元/瓦）")),
        "cost.cooling_usd_per_card" => Some(("Cooling per card (USD)", "每卡散热（美元）")),
        "cost.electricity_usd_per_kwh" => {
            Some(("Electricity (USD per kWh)", "电价（美元/千瓦时）"))
        }
        "cost.pue" => Some(("Cooling overhead on power (PUE)", "制冷能耗系数（PUE）")),
        "cost.utilization" => Some((
            "Fraction of the lifetime training (0-1)",
            "训练时间占比（0-1）",
        )),
        "cost.lifetime_years" => Some(("Lifetime (years)", "使用年限（年）")),
        "cost.ops_hours_per_month" => {
            Some(("Administration, one card (h/month)", "单卡运维（小时/月）"))
        }
        "cost.ops_hours_per_month_per_extra_card" => Some((
            "Administration per extra card (h/month)",
            "每增加一卡的运维（小时/月）",
        )),
        "cost.ops_usd_per_hour" => Some(("Engineer-hour (USD)", "工程师时薪（美元）")),
        "cost.cloud_usd_per_gpu_hour" => {
            Some(("Cloud rental (USD per GPU-hour)", "云租用（美元/GPU 小时）"))
        }
        _ => None,
    };
    match (known, lang) {
        (Some((en, _)), Lang::En) => en.into(),
        (Some((_, zh)), Lang::Zh) => zh.into(),
        (None, _) => path.into(),
    }
}

/// Tooltip of a roofline point.
pub fn roofline_point_sentence(
    lang: Lang,
    label: &str,
    intensity: &str,
    rate: &str,
    bound: &str,
    ridge: &str,
) -> String {
    match lang {
        Lang::En => {
            format!("{label}: {intensity}, {rate}; {bound} (the ridge of this roof is at {ridge}).")
        }
        Lang::Zh => format!("{label}：{intensity}，{rate}；{bound}（此上限的拐点为 {ridge}）。"),
    }
}

/// "Run (100 epochs)".
pub fn run_time_label(lang: Lang, epochs: u32) -> String {
    match lang {
        Lang::En => format!("Run ({epochs} epochs)"),
        Lang::Zh => format!("整次训练（{epochs} 轮）"),
    }
}

/// Where the step's time goes.
pub fn step_breakdown_sentence(
    lang: Lang,
    forward: &str,
    backward: &str,
    optimizer: &str,
    allreduce: &str,
) -> String {
    match lang {
        Lang::En => format!(
            "Per micro-step: forward {forward}, backward {backward}; optimizer update {optimizer}; all-reduce not hidden by backward {allreduce}."
        ),
        Lang::Zh => format!(
            "每个微步：前向 {forward}，反向 {backward}；优化器更新 {optimizer}；未被反向掩盖的 all-reduce {allreduce}。"
        ),
    }
}

/// "The step is memory-bound." from the kind of pass that takes most of its time.
pub fn step_bound_sentence(lang: Lang, bound: &str) -> String {
    match lang {
        Lang::En => format!("Most of the step is {bound}."),
        Lang::Zh => format!("训练步的大部分时间{bound}。"),
    }
}

/// "With NVLink bridge (pairs) the step would take 41 ms instead of 42 ms."
pub fn alternative_sentence(lang: Lang, topology: &str, other: &str, chosen: &str) -> String {
    match lang {
        Lang::En => format!("With {topology} the step would take {other} instead of {chosen}."),
        Lang::Zh => format!("若使用 {topology}，单步时间为 {other}（当前 {chosen}）。"),
    }
}

/// "fits with 31 % headroom on RTX A5500" / "does not fit on RTX A5500 (needs 27.1 GiB of 24 GiB)".
pub fn fit_sentence(
    lang: Lang,
    fits: bool,
    gpu: &str,
    headroom: &str,
    total: &str,
    capacity: &str,
) -> String {
    match (lang, fits) {
        (Lang::En, true) => {
            format!("Fits with {headroom} headroom on {gpu} ({total} of {capacity}).")
        }
        (Lang::Zh, true) => format!("可以放进 {gpu}，余量 {headroom}（{total} / {capacity}）。"),
        (Lang::En, false) => format!("Does not fit on {gpu}: needs {total} of {capacity}."),
        (Lang::Zh, false) => format!("放不进 {gpu}：需要 {total}，容量 {capacity}。"),
    }
}

/// "The largest batch that fits with the 20 % headroom kept is 212."
pub fn max_batch_sentence(lang: Lang, headroom: &str, max_batch: u32) -> String {
    match (lang, max_batch) {
        (Lang::En, 0) => format!("Not even batch 1 fits with {headroom} headroom kept."),
        (Lang::Zh, 0) => format!("保留 {headroom} 余量时连批大小 1 也放不下。"),
        (Lang::En, n) => format!("The largest batch per GPU with {headroom} headroom kept is {n}."),
        (Lang::Zh, n) => format!("保留 {headroom} 余量时，每卡最大批大小为 {n}。"),
    }
}

/// Label of a predicted-versus-measured term (`measurement::Term::name`).
pub fn measured_term_label(name: &str, lang: Lang) -> String {
    let label = match (name, lang) {
        ("peak_allocated_bytes", Lang::En) => "Peak allocated (max_memory_allocated)",
        ("peak_allocated_bytes", Lang::Zh) => "已分配峰值（max_memory_allocated）",
        ("peak_reserved_bytes", Lang::En) => "Peak reserved (max_memory_reserved)",
        ("peak_reserved_bytes", Lang::Zh) => "保留峰值（max_memory_reserved）",
        ("context_bytes", Lang::En) => "CUDA context and libraries",
        ("context_bytes", Lang::Zh) => "CUDA 上下文与库",
        ("device_total_bytes", Lang::En) => "Device total (as nvidia-smi shows)",
        ("device_total_bytes", Lang::Zh) => "设备总占用（nvidia-smi 所示）",
        ("step_time_s", Lang::En) => "Step time (median)",
        ("step_time_s", Lang::Zh) => "单步时间（中位数）",
        ("max_batch", Lang::En) => "Largest batch before out of memory",
        ("max_batch", Lang::Zh) => "显存溢出前的最大批大小",
        _ => name,
    };
    label.into()
}

/// Caption of one measurement's comparison.
pub fn measured_caption(
    lang: Lang,
    source: &str,
    device: &str,
    batch: u32,
    model: &str,
    gpu: &str,
) -> String {
    match lang {
        Lang::En => format!(
            "{source}: measured on {device} at batch {batch}; estimated for {model} on {gpu}"
        ),
        Lang::Zh => {
            format!("{source}：在 {device} 上实测，批大小 {batch}；按 {gpu} 上的 {model} 估算")
        }
    }
}

/// Why a comparison may not set like beside like (`measurement::Note`).
pub fn note_text(note: &hsi_gpu_core::measurement::Note, lang: Lang) -> String {
    use hsi_gpu_core::measurement::Note;
    let Lang::Zh = lang else {
        return note.to_string();
    };
    match note {
        Note::OneCard(cards) => format!("场景为 {cards} 张卡；测量只针对单卡，按单卡对比"),
        Note::Setting {
            field,
            measured,
            scenario,
        } => {
            let label = match *field {
                "bands" => T::Bands.get(lang),
                "patch" => T::Patch.get(lang),
                "classes" => T::Classes.get(lang),
                "precision" => T::Precision.get(lang),
                "optimizer" => T::Optimizer.get(lang),
                "checkpointing" => T::Checkpointing.get(lang),
                other => other,
            };
            format!("实测的{label}为 {measured}，场景为 {scenario}：按 {measured} 估算")
        }
        Note::OtherModel { measured, scenario } => {
            format!("实测模型为 {measured}，场景模型为 {scenario}：数字可能不可比")
        }
        Note::OtherCard { measured, scenario } => {
            format!("在 {measured} 上实测，场景显卡为 {scenario}")
        }
        Note::Synthetic => "合成示例：虚构数字，并非实测".into(),
        Note::DryRun => "CPU 试运行：没有 CUDA 数据，其单步时间也不代表显卡".into(),
    }
}

/// A remark on an estimate (`report::Warning`).
pub fn warning_text(warning: &hsi_gpu_core::report::Warning, lang: Lang) -> String {
    use hsi_gpu_core::report::Warning;
    let Lang::Zh = lang else {
        return warning.to_string();
    };
    match warning {
        Warning::NoTf32 { gpu } => format!("{gpu} 没有 TF32 张量核心：tf32 按 FP32 速率估算"),
        Warning::NoBf16 { gpu } => {
            format!("{gpu} 不支持 BF16：bf16 为模拟执行，最多按 FP32 速率估算")
        }
        Warning::UnknownDataset { id } => format!("未知数据集 {id}：未估算每轮时间"),
        Warning::PriceUnknown { gpu } => {
            format!("{gpu} 价格未知：请设置 cost.card_price_usd（显卡暂按 0 美元计）")
        }
    }
}

/// A constant calibration left alone, and why (the reason is the core's, in English).
pub fn not_fitted_sentence(lang: Lang, label: &str, why: &str) -> String {
    match lang {
        Lang::En => format!("{label}: not fitted ({why})."),
        Lang::Zh => format!("{label}：未拟合（已载入的测量缺少所需数据：{why}）。"),
    }
}

/// Under a custom model: its layer list fixes the input, whatever the sliders say.
pub fn custom_model_note(lang: Lang, input: &str) -> String {
    match lang {
        Lang::En => format!(
            "The layer list fixes the input shape {input}: the band and patch sliders do not change the model (export it again for another geometry)."
        ),
        Lang::Zh => format!(
            "层列表固定了输入形状 {input}：波段数与空间块大小滑块不会改变模型（如需其他尺寸请重新导出）。"
        ),
    }
}

pub fn could_not_read_sentence(lang: Lang, source: &str) -> String {
    match lang {
        Lang::En => format!("Could not use {source}:"),
        Lang::Zh => format!("无法使用 {source}："),
    }
}

pub fn cannot_compare_sentence(lang: Lang, source: &str) -> String {
    match lang {
        Lang::En => format!("{source} cannot be compared with this scenario:"),
        Lang::Zh => format!("{source} 无法与此场景对比："),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_string_exists_in_both_languages() {
        for key in T::ALL {
            let en = key.get(Lang::En);
            let zh = key.get(Lang::Zh);
            assert!(!en.trim().is_empty() && !zh.trim().is_empty(), "{key:?}");
        }
        // The Chinese side is actually Chinese (apart from technical names).
        let translated = T::ALL
            .iter()
            .filter(|k| k.get(Lang::Zh) != k.get(Lang::En))
            .count();
        assert!(
            translated + 2 >= T::ALL.len(),
            "{translated} of {}",
            T::ALL.len()
        );
    }

    #[test]
    fn every_assumption_has_a_label_in_both_languages() {
        let s = hsi_gpu_core::Scenario::default();
        for (path, _) in crate::query::fields_under(&s, &crate::ASSUMPTION_SECTIONS) {
            if crate::SCENARIO_PANEL_FIELDS.contains(&path.as_str()) {
                continue;
            }
            for lang in [Lang::En, Lang::Zh] {
                assert_ne!(
                    field_label(&path, lang),
                    path,
                    "{path} has no {lang:?} label"
                );
            }
        }
    }

    #[test]
    fn measurement_notes_and_terms_are_worded_in_both_languages() {
        use hsi_gpu_core::measurement::Note;
        let notes = [
            Note::OneCard(4),
            Note::Setting {
                field: "bands",
                measured: "60".into(),
                scenario: "30".into(),
            },
            Note::OtherModel {
                measured: "ssrn".into(),
                scenario: "hybridsn".into(),
            },
            Note::OtherCard {
                measured: "NVIDIA A100".into(),
                scenario: "RTX A5500".into(),
            },
            Note::Synthetic,
            Note::DryRun,
        ];
        for note in &notes {
            assert_eq!(note_text(note, Lang::En), note.to_string());
            assert_ne!(note_text(note, Lang::Zh), note.to_string());
        }
        assert!(note_text(&notes[1], Lang::Zh).contains(T::Bands.get(Lang::Zh)));
        for term in [
            "peak_allocated_bytes",
            "peak_reserved_bytes",
            "context_bytes",
            "device_total_bytes",
            "step_time_s",
            "max_batch",
        ] {
            let (en, zh) = (
                measured_term_label(term, Lang::En),
                measured_term_label(term, Lang::Zh),
            );
            assert!(en != term && zh != term && en != zh, "{term}");
        }
    }

    #[test]
    fn estimate_warnings_are_worded_in_both_languages() {
        use hsi_gpu_core::report::Warning;
        let gpu = "V100 PCIe 32 GB".to_string();
        let warnings = [
            Warning::NoTf32 { gpu: gpu.clone() },
            Warning::NoBf16 { gpu: gpu.clone() },
            Warning::UnknownDataset { id: "mine".into() },
            Warning::PriceUnknown { gpu },
        ];
        for w in &warnings {
            assert_eq!(warning_text(w, Lang::En), w.to_string());
            let zh = warning_text(w, Lang::Zh);
            assert_ne!(zh, w.to_string());
            assert!(!zh.is_ascii(), "{zh}");
        }
    }

    #[test]
    fn browser_language_picks_chinese_for_any_zh_tag() {
        assert_eq!(Lang::from_browser("zh-CN"), Lang::Zh);
        assert_eq!(Lang::from_browser("zh-Hant-TW"), Lang::Zh);
        assert_eq!(Lang::from_browser("en-GB"), Lang::En);
        assert_eq!(Lang::from_browser(""), Lang::En);
        for lang in [Lang::En, Lang::Zh] {
            assert_eq!(Lang::from_code(lang.code()), Some(lang));
            assert_eq!(lang.other().other(), lang);
        }
    }
}
