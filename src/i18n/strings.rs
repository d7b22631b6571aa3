//! The UI's fixed texts, each key with both languages.

texts! {
    /// A UI string.
    enum T;
    Title => "HSI GPU Planner", "高光谱 GPU 规划器";
    Tagline => "Will this hyperspectral model fit on this GPU, how fast does it train, how does it scale and what does it cost?",
        "这个高光谱模型能否放进这块 GPU？训练多快？多卡如何扩展？成本多少？";
    EstimatesNote => "All figures are estimates from an analytic model (shapes, FLOPs, datasheet peaks and the assumptions below), not measurements. Checked against measured runs (see the validation notes): step time off by 9 % at the median on published benchmarks and 12.9 % on our own H200 runs (HSI 3-D CNNs without cudnn.benchmark: 8 %); allocated peak memory by 3 %, reserved (the caching allocator, simulated) by 6 %, mostly low: keep headroom (the default 20 % covered 55 of 55 measured steps).",
        "所有数字均为解析模型（张量形状、FLOPs、官方规格峰值与下方假设）的估算值，并非实测。与实测对比（见验证说明）：单步时间在公开基准上的中位误差为 9 %，在本项目的 H200 实测上为 12.9 %（未开 cudnn.benchmark 的高光谱 3-D CNN：8 %）；已分配显存峰值为 3 %，已保留显存（模拟缓存分配器）为 6 %，多数偏少：请留出余量（默认的 20 % 余量覆盖了 55 个实测步骤中的 55 个）。";
    LanguageToggleLabel => "Switch language to Chinese", "切换到英文";
    Presentation => "Presentation mode", "演示模式";
    CopyLink => "Copy link", "复制链接";
    LinkCopied => "Link copied", "链接已复制";
    LinkInAddressBar => "Copy the address bar", "请复制地址栏";
    LinkLeavesComparison => "The link carries the scenario only; the comparison stays in this browser (share it with Export, Comparison (JSON)).", "链接只含场景；方案对比保存在本浏览器中（可用“导出”中的“对比（JSON）”分享）。";
    OpenFull => "Open the full planner", "打开完整版";
    Reset => "Reset to defaults", "恢复默认";
    Inputs => "Scenario", "场景";
    MoreInputs => "More inputs", "更多输入";
    Dataset => "Dataset", "数据集";
    Model => "Model", "模型";
    Gpu => "GPU", "GPU";
    Bands => "Spectral bands", "光谱波段数";
    Patch => "Spatial patch size", "空间块大小";
    Classes => "Classes", "类别数";
    Batch => "Batch per GPU", "每卡批大小";
    Precision => "Precision", "精度";
    CudnnBenchmark => "cudnn.benchmark", "cudnn.benchmark（cuDNN 算法测速）";
    CudnnBenchmarkHelp => "torch.backends.cudnn.benchmark = True: cuDNN times its convolution algorithms on the first step and keeps the fastest. Off (PyTorch's default, and most HSI code) it takes its heuristics' pick.",
        "torch.backends.cudnn.benchmark = True：cuDNN 在第一步实测各卷积算法并保留最快者。关闭时（PyTorch 默认，多数高光谱代码如此）采用其启发式选择。";
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
    NotAField => "not a field of the scenario", "不是场景中的字段";
    GroupOfFields => "a group of fields, not one value", "这是一组字段，不是单个值";
    Notices => "Some link parameters were not used", "部分链接参数未被采用";
    NoticeFallback => "the default is used instead", "已改用默认值";
    Dismiss => "Dismiss", "关闭";
    Errors => "This scenario cannot be estimated", "无法估算此场景";
    StaleNote => "The charts show the last valid estimate until the input is fixed.",
        "图表显示的是上一次有效输入的估算结果，请修正输入。";
    Allowed => "allowed", "允许";
    Memory => "Memory per GPU", "每卡显存";
    MemoryHelp => "Stacked terms of the peak memory on one card; the line marks the usable capacity, the dashed line the capacity less the headroom you keep free. The bars reach the device total: the caching allocator's reserved peak (simulated) plus the CUDA context.",
        "单卡峰值显存的各组成部分；实线为可用容量，虚线为扣除预留余量后的容量。柱高为总显存占用：缓存分配器的已保留峰值（模拟）加 CUDA 上下文。";
    TotalMemory => "Device total (reserved + context)", "总显存占用（已保留 + 上下文）";
    AllocatedReservedPeak => "Allocated / reserved peak", "已分配 / 已保留峰值";
    Capacity => "Capacity", "容量";
    HeadroomLine => "Capacity less headroom", "扣除余量后";
    MaxBatch => "Largest batch that fits (with headroom)", "可容纳的最大批大小（含余量）";
    TermContext => "CUDA context", "CUDA 上下文";
    TermWeights => "Weights", "权重";
    TermGradients => "Gradients", "梯度";
    TermOptimizer => "Optimizer states", "优化器状态";
    TermActivations => "Activations", "激活";
    TermTransient => "Transient", "临时张量";
    TermAllocator => "Allocator cache and cuDNN workspaces", "分配器缓存与 cuDNN 工作区";
    TermInputCube => "Data cube on the GPU", "显卡上的数据立方体";
    TermShardingBuffers => "Sharding buffers and gathered layers", "分片缓冲区与聚合的层";
    Advanced => "Advanced / foundation model", "高级 / 基础模型";
    AdvancedHelp => "Estimates: ZeRO memory per the paper's formulas; collectives -7 to +25 % of published nccl-tests; tensor parallelism -13 to +8 % of Megatron-LM's published scaling; pipeline: 1F1B, bubble (p-1)/(m+p-1), not checked against a measurement (see the validation notes).",
        "估算：显存按 ZeRO 论文公式；通信与公开 nccl-tests 相差 -7 % 至 +25 %；张量并行与 Megatron-LM 公开的扩展效率相差 -13 % 至 +8 %；流水线：1F1B，气泡 (p-1)/(m+p-1)，尚未与实测对比（见验证说明）。";
    Nodes => "Nodes", "节点";
    Layout => "Layout", "并行布局";
    TensorAllreduces => "tensor-parallel all-reduces per micro-batch", "每个微批次的张量并行 all-reduce";
    PipelineBubble => "pipeline bubble", "流水线气泡";
    BoundHost => "the host CPU (PyTorch dispatch, autograd, the optimizer loop)", "主机 CPU（PyTorch 调度、自动求导、优化器循环）";
    BoundInput => "the input pipeline (patches, DataLoader, copy to the GPU)", "输入管线（切块、DataLoader、拷贝到显卡）";
    BoundDevice => "the GPU", "显卡";
    BoundAllreduce => "the all-reduce between the cards", "卡间 all-reduce";
    BoundOffload => "the optimizer offload (PCIe copies and CPU Adam)", "优化器卸载（PCIe 拷贝与 CPU Adam）";
    ExposedAllreduce => "exposed all-reduce", "未掩盖的 all-reduce";
    OptimizerOffload => "optimizer offload", "优化器卸载";
    StepBoundBy => "Step bound by", "单步瓶颈";
    Cpu => "Host CPU", "主机 CPU";
    Workers => "DataLoader workers", "DataLoader worker 数";
    CubeOnGpu => "Data cube on the GPU", "数据立方体放在显卡上";
    Attention => "Attention", "注意力";
    AttentionMath => "Written out (math)", "显式计算（math）";
    AttentionSdpa => "Fused (SDPA)", "融合内核（SDPA）";
    FineTune => "Training", "训练方式";
    FineTuneFull => "Full", "全参数";
    FineTuneFrozen => "Frozen, head trains", "冻结，只训练头";
    FineTuneLora => "LoRA (qkv, proj)", "LoRA（qkv、proj）";
    LoraRank => "LoRA rank", "LoRA 秩";
    Host => "host CPU", "主机 CPU";
    InputPipeline => "input pipeline", "输入管线";
    BoundGpu => "GPU", "显卡";
    HostShare => "Host time per step", "每步主机时间";
    InputRate => "Input pipeline rate", "输入管线速率";
    Verdict => "Verdict", "结论";
    Fits => "fits", "可以放下";
    DoesNotFit => "does not fit", "放不下";
    FitsShort => "short of headroom", "余量不足";
    Layers => "Per-layer breakdown", "逐层明细";
    LaunchBound => "limited by the least time per kernel", "受单个内核最短时间限制";
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
    IntensityAxis => "Arithmetic intensity (FLOP/byte)", "算术强度（FLOP/字节）";
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
    CostBridges => "NVLink bridges", "NVLink 桥";
    CardPrice => "Card price", "显卡单价";
    PriceListed => "dated listing", "有日期的标价";
    PriceGuess => "a guess, not a listing", "估计值，不是标价";
    PriceLaunch => "launch price", "首发价";
    PriceYours => "yours, entered under Assumptions", "您在“假设”中输入的";
    BridgeUnknown => "No price is known for this card's NVLink bridge, so capex and TCO leave the bridges out. Enter one under Assumptions (NVLink bridge price).",
        "这张卡的 NVLink 桥没有已知价格，资本支出和总拥有成本未计入桥。请在“假设”中输入（NVLink 桥价格）。";
    CostPlatform => "Platform (board, CPU, RAM, chassis)", "平台（主板、CPU、内存、机箱）";
    CostPsu => "Power supply", "电源";
    CostCooling => "Cooling", "散热";
    CostEnergy => "Electricity", "电费";
    CostOps => "Operations time", "运维人力";
    PerMillionSamples => "Per million training samples", "每百万训练样本";
    PerExperiment => "Per experiment (one run)", "每次实验（一次训练）";
    PerSweep => "Per sweep", "每次超参搜索";
    OwnBox => "This box", "自建";
    Cloud => "Cloud rental", "云租用";
    LoadModel => "Your model (a layer list exported from PyTorch, or a saved scenario)", "自己的模型（从 PyTorch 导出的层列表，或保存的场景文件）";
    ComparisonFile => "this is a comparison: import it in the comparison view below", "这是一个对比文件：请在下方的对比视图中导入";
    Custom => "custom", "自定义";
    Measured => "Measured vs estimated", "实测与估算对比";
    MeasuredHelp => "Load the file the planner's measuring script writes on a CUDA machine (see the user guide). Each figure is set beside the estimate for the scenario as measured: one card, the measurement's batch, geometry and precision. Error = (estimate − measured) / measured; positive means the estimate is high.",
        "载入测量脚本在 CUDA 机器上写出的测量文件（见使用指南）。每项实测值与按实测条件（单卡、实测的批大小、尺寸与精度）得到的估算值并列。误差 =（估算 − 实测）/ 实测，正值表示估算偏高。";
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
    MemoryAxis => "Memory per GPU (GiB)", "每卡显存（GiB）";
    SpeedupAxis => "Speed-up over one card (×)", "相对单卡的加速比（×）";
    SpeedupAxisShort => "Speed-up (×)", "加速比（×）";
    FlopRateAxis => "Attained FLOP/s", "实际 FLOP/s";
    CostAxis => "US dollars", "美元";
    CostAxisCny => "Chinese yuan", "人民币";
    CloudSameUsage => "Cloud, same hours", "云租用同等时长";
    ChartHint => "Hover over or tab to a bar or point to read its value.", "将鼠标悬停或用 Tab 键移到柱或点上查看数值。";
    BeforeChange => "before", "改动前";
    GhostLegend => "Faint: before the last change", "浅色：上次改动前";
    Details => "Details: per-layer table, assumptions, measurements, comparison", "详细信息：逐层明细、假设、实测对比、方案对比";
    PriceUnknown => "No price is known for this card, so the figures that need one are left out. Enter one under Assumptions (card price).",
        "这张卡没有已知价格，需要价格的数字暂不显示。请在“假设”中输入（显卡单价）。";
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;

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
}
