//! The Scenario's choices by id: precision, optimizer, interconnect, parallel mode and
//! the ViT size. Each id is written once, in its `json_enum!`.

use crate::json::json_enum;

json_enum! {
    /// Numeric precision of training.
    pub enum Precision {
        /// What PyTorch does by default: fp32 tensors, cuDNN convolutions allowed to use
        /// TF32 on cards that have it (`torch.backends.cudnn.allow_tf32 = True`),
        /// matmuls in fp32 (`torch.backends.cuda.matmul.allow_tf32 = False` since
        /// PyTorch 1.12). PyTorch docs, "CUDA semantics: TensorFloat-32 (TF32) on Ampere
        /// (and later) devices".
        TorchDefault = "torch_default",
        /// Plain fp32 on CUDA cores (TF32 disabled).
        Fp32 = "fp32",
        /// fp32 storage, matmul/conv on TF32 tensor cores (`allow_tf32 = True`).
        Tf32 = "tf32",
        /// `torch.autocast(dtype=float16)` + GradScaler: fp32 weights, fp16 conv/linear.
        AmpFp16 = "amp_fp16",
        /// `torch.autocast(dtype=bfloat16)`: fp32 weights, bf16 conv/linear.
        AmpBf16 = "amp_bf16",
        /// The whole model cast to bf16 (`model.to(torch.bfloat16)`), optimizer states in
        /// bf16.
        Bf16 = "bf16",
    }
}

impl Precision {
    /// True for autocast modes, where fp32 parameters are the master weights and
    /// conv/linear/matmul run on half-precision copies.
    pub fn is_autocast(self) -> bool {
        matches!(self, Precision::AmpFp16 | Precision::AmpBf16)
    }

    /// Bytes of one parameter (and of its gradient) as stored.
    pub fn param_bytes(self) -> u64 {
        match self {
            Precision::Bf16 => 2,
            _ => 4,
        }
    }

    /// Bytes of one element of a conv/linear/matmul operand or result.
    pub fn matmul_bytes(self) -> u64 {
        match self {
            Precision::TorchDefault | Precision::Fp32 | Precision::Tf32 => 4,
            _ => 2,
        }
    }
}

json_enum! {
    /// The currency costs are shown in (the model computes in USD).
    #[derive(Default)]
    pub enum Currency {
        #[default]
        Usd = "usd",
        Cny = "cny",
    }
}

json_enum! {
    pub enum Optimizer {
        Sgd = "sgd",
        SgdMomentum = "sgd_momentum",
        Adam = "adam",
        Adamw = "adamw",
    }
}

impl Optimizer {
    /// State tensors kept per parameter (momentum buffer; Adam's exp_avg and exp_avg_sq).
    pub fn states_per_param(self) -> u64 {
        match self {
            Optimizer::Sgd => 0,
            Optimizer::SgdMomentum => 1,
            Optimizer::Adam | Optimizer::Adamw => 2,
        }
    }
}

json_enum! {
    /// How the cards talk to each other.
    pub enum Interconnect {
        /// PCIe x16; peer-to-peer where the card allows it, else through host memory.
        Pcie = "pcie",
        /// NVLink bridges joining pairs of cards; the ring still crosses PCIe between
        /// pairs.
        NvlinkBridge = "nvlink_bridge",
        /// SXM boards: every card on NVLink / NVSwitch.
        Nvswitch = "nvswitch",
    }
}

json_enum! {
    /// How several cards are used.
    pub enum ParallelMode {
        /// One run, DistributedDataParallel over all cards (fixed per-GPU batch).
        Ddp = "ddp",
        /// N independent runs, one per card, no communication.
        ParallelExperiments = "parallel_experiments",
    }
}

json_enum! {
    /// Vision-transformer foundation-model size presets.
    pub enum VitSize {
        Small = "small",
        Base = "base",
        Large = "large",
        Huge = "huge",
    }
}

json_enum! {
    /// The host CPU, by class (see `host::cpu_profile` for what each means).
    pub enum CpuClass {
        /// A laptop CPU: lower sustained clocks, 8 cores.
        Laptop = "laptop",
        /// A current desktop / workstation CPU, 16 cores: the reference.
        Workstation = "workstation",
        /// A dual-socket server: lower clock per core, 64 cores.
        Server = "server",
    }
}

json_enum! {
    /// How attention runs: `math` writes it out (the T x T scores and probabilities are
    /// kept for backward), `sdpa` is `F.scaled_dot_product_attention` with a fused kernel
    /// (flash or memory-efficient: the log-sum-exp is kept instead).
    pub enum Attention {
        Math = "math",
        Sdpa = "sdpa",
    }
}
