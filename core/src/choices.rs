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
        /// ViT-g/14's shape (Zhai et al., "Scaling Vision Transformers", CVPR 2022): about
        /// 1.0 B parameters, HyperSIGMA's scale.
        Giant = "giant",
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

json_enum! {
    /// How the model states are split over the data-parallel ranks.
    pub enum Sharding {
        /// Every rank holds everything (DistributedDataParallel).
        None = "none",
        /// DeepSpeed ZeRO stage 1: optimizer states (and the fp32 master) split.
        Zero1 = "zero1",
        /// ZeRO stage 2: gradients split too.
        Zero2 = "zero2",
        /// ZeRO stage 3: parameters split too, gathered layer by layer.
        Zero3 = "zero3",
        /// PyTorch FSDP, FULL_SHARD: like ZeRO-3, gathered per wrapped unit.
        Fsdp = "fsdp",
    }
}

impl Sharding {
    /// What is split over the ranks: (optimizer states, gradients, parameters).
    pub fn splits(self) -> (bool, bool, bool) {
        match self {
            Sharding::None => (false, false, false),
            Sharding::Zero1 => (true, false, false),
            Sharding::Zero2 => (true, true, false),
            Sharding::Zero3 | Sharding::Fsdp => (true, true, true),
        }
    }
}

json_enum! {
    /// The network between nodes (one port per NIC).
    pub enum NodeLink {
        /// 25 GbE, NCCL over TCP sockets.
        Eth25 = "eth_25g",
        /// 100 GbE, NCCL over TCP sockets.
        Eth100 = "eth_100g",
        /// 100 Gb/s RDMA over Converged Ethernet.
        Roce100 = "roce_100g",
        /// 200 Gb/s RoCE.
        Roce200 = "roce_200g",
        /// InfiniBand HDR, 200 Gb/s (4x 50G lanes).
        IbHdr = "ib_hdr",
        /// InfiniBand NDR, 400 Gb/s (4x 100G lanes).
        IbNdr = "ib_ndr",
    }
}

impl NodeLink {
    /// Line rate of one port, bits/s: IEEE 802.3by (25GbE) and 802.3bj/cd (100GbE),
    /// InfiniBand Trade Association HDR 200 Gb/s and NDR 400 Gb/s (4x ports).
    pub fn line_bits_per_s(self) -> f64 {
        match self {
            NodeLink::Eth25 => 25e9,
            NodeLink::Eth100 | NodeLink::Roce100 => 100e9,
            NodeLink::Roce200 | NodeLink::IbHdr => 200e9,
            NodeLink::IbNdr => 400e9,
        }
    }

    /// RDMA (GPUDirect, NCCL's IB transport) rather than TCP sockets.
    pub fn rdma(self) -> bool {
        !matches!(self, NodeLink::Eth25 | NodeLink::Eth100)
    }

    /// Fraction of the line rate NCCL reaches. RDMA: "for NDR @ 400Gbps you should see
    /// 46-48GB/s per NIC" of 50 (NVIDIA, nccl-tests issue 290). TCP sockets (kernel
    /// copies, no GPUDirect): a rough assumption.
    pub fn efficiency(self) -> f64 {
        if self.rdma() {
            0.94
        } else {
            0.6
        }
    }

    /// Seconds per inter-node ring step. RDMA: NCCL's own tuning model puts 6.6-9.6 us
    /// of network latency on a ring step (src/graph/tuning.cc, hwLat); TCP sockets: a
    /// rough assumption.
    pub fn latency_s(self) -> f64 {
        if self.rdma() {
            10e-6
        } else {
            40e-6
        }
    }
}
