//! Ready-made option sets.

use super::decision::DecisionInputs;
use super::{CompareOption, Comparison};
use crate::scenario::{Interconnect, ParallelMode, Scenario};

/// One option: `base`'s workload on `cards` x `gpu`, with `base`'s tensor and pipeline
/// parallelism where its cards take them (one card alone otherwise).
pub fn option(
    base: &Scenario,
    gpu: &str,
    cards: u32,
    interconnect: Interconnect,
    mode: ParallelMode,
    label: &str,
) -> CompareOption {
    let mut scenario = base.clone();
    onto_card(&mut scenario, gpu);
    scenario.cards = cards;
    scenario.interconnect = interconnect;
    scenario.workload.mode = mode;
    let replica = base.tensor_parallel * base.pipeline_parallel;
    if mode == ParallelMode::ParallelExperiments || !cards.is_multiple_of(replica.max(1)) {
        scenario.tensor_parallel = 1;
        scenario.pipeline_parallel = 1;
        scenario.micro_batches = 1;
    }
    CompareOption {
        label: label.into(),
        scenario,
    }
}

/// `s` on the card `gpu`: the prices entered for its own card (card, NVLink bridge, cloud
/// rate per GPU-hour) do not carry over to another one, which takes its own dated prices.
pub fn onto_card(s: &mut Scenario, gpu: &str) {
    if s.gpu != gpu {
        s.gpu = gpu.into();
        s.cost.card_price_usd = None;
        s.cost.bridge_usd_per_pair = None;
        s.cost.cloud_usd_per_gpu_hour = None;
    }
}

/// Whether `o` still runs `base`'s workload: it is what `option` makes of `base` on its
/// own card, count, link and use of the cards, with its own parallel layout and
/// cudnn.benchmark (which the comparison lets each option choose).
pub fn runs_workload_of(o: &CompareOption, base: &Scenario) -> bool {
    let s = &o.scenario;
    let mut expected = option(base, &s.gpu, s.cards, s.interconnect, s.workload.mode, "").scenario;
    expected.tensor_parallel = s.tensor_parallel;
    expected.pipeline_parallel = s.pipeline_parallel;
    expected.micro_batches = s.micro_batches;
    expected.cudnn_benchmark = s.cudnn_benchmark;
    expected == *s
}

/// The article's question for `base`'s workload: four single cards against 4x RTX A5500
/// as DDP over PCIe, DDP with NVLink-bridged pairs, and four parallel experiments
/// (labels in names and symbols only, the same in both languages).
pub fn article_options(base: &Scenario) -> Vec<CompareOption> {
    use Interconnect::{NvlinkBridge, Pcie};
    use ParallelMode::{Ddp, ParallelExperiments};
    vec![
        option(base, "rtx_3090", 1, Pcie, Ddp, "1x RTX 3090"),
        option(base, "rtx_4090", 1, Pcie, Ddp, "1x RTX 4090"),
        option(base, "v100s_pcie", 1, Pcie, Ddp, "1x V100S 32 GB"),
        option(base, "rtx_a6000", 1, Pcie, Ddp, "1x RTX A6000 48 GB"),
        option(base, "rtx_a5500", 4, Pcie, Ddp, "4x RTX A5500 DDP PCIe"),
        option(
            base,
            "rtx_a5500",
            4,
            NvlinkBridge,
            Ddp,
            "4x RTX A5500 DDP NVLink",
        ),
        option(
            base,
            "rtx_a5500",
            4,
            Pcie,
            ParallelExperiments,
            "4 × (1x RTX A5500)",
        ),
    ]
}

pub fn article_comparison(base: &Scenario) -> Comparison {
    Comparison {
        options: article_options(base),
        decision: DecisionInputs::default(),
    }
}
