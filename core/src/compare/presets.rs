//! Ready-made option sets.

use super::decision::DecisionInputs;
use super::{CompareOption, Comparison};
use crate::gpu::gpu_by_id;
use crate::scenario::{Interconnect, ParallelMode, Scenario};

/// One option: `base`'s workload on `cards` x `gpu`, with `base`'s tensor and pipeline
/// parallelism where its cards take them (one card alone otherwise).
pub fn option(
    base: &Scenario,
    gpu: &str,
    cards: u32,
    interconnect: Interconnect,
    mode: ParallelMode,
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
        label: hardware_label(&scenario),
        scenario,
    }
}

/// The name an option gets from its hardware, in names and symbols only (the same in both
/// languages): "1x RTX 3090", "4x RTX A5500 DDP NVLink", "4x RTX A5500 DDP PCIe TP 2",
/// "4 × (1x RTX A5500)" for independent runs.
pub fn hardware_label(s: &Scenario) -> String {
    let name = gpu_by_id(&s.gpu).map_or(s.gpu.as_str(), |g| g.name);
    let cards = s.cards;
    if cards < 2 {
        return format!("1x {name}");
    }
    if s.workload.mode == ParallelMode::ParallelExperiments {
        return format!("{cards} × (1x {name})");
    }
    let link = match s.interconnect {
        Interconnect::Pcie => "PCIe",
        Interconnect::NvlinkBridge => "NVLink",
        Interconnect::Nvswitch => "NVSwitch",
    };
    let mut label = format!("{cards}x {name} DDP {link}");
    for (word, n) in [("TP", s.tensor_parallel), ("PP", s.pipeline_parallel)] {
        if n > 1 {
            label += &format!(" {word} {n}");
        }
    }
    label
}

/// `after` is `before` edited: a label that named `before`'s hardware names `after`'s, so
/// that the table, the charts and the recommendation say what the option now is; a label
/// the user wrote stays.
pub fn follow_hardware(before: &CompareOption, after: &mut CompareOption) {
    if after.label == before.label && before.label == hardware_label(&before.scenario) {
        after.label = hardware_label(&after.scenario);
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
    let mut expected = option(base, &s.gpu, s.cards, s.interconnect, s.workload.mode).scenario;
    expected.tensor_parallel = s.tensor_parallel;
    expected.pipeline_parallel = s.pipeline_parallel;
    expected.micro_batches = s.micro_batches;
    expected.cudnn_benchmark = s.cudnn_benchmark;
    expected == *s
}

/// The article's question for `base`'s workload: four single cards against 4x RTX A5500
/// as DDP over PCIe, DDP with NVLink-bridged pairs, and four parallel experiments
/// (named by `hardware_label`).
pub fn article_options(base: &Scenario) -> Vec<CompareOption> {
    use Interconnect::{NvlinkBridge, Pcie};
    use ParallelMode::{Ddp, ParallelExperiments};
    vec![
        option(base, "rtx_3090", 1, Pcie, Ddp),
        option(base, "rtx_4090", 1, Pcie, Ddp),
        option(base, "v100s_pcie", 1, Pcie, Ddp),
        option(base, "rtx_a6000", 1, Pcie, Ddp),
        option(base, "rtx_a5500", 4, Pcie, Ddp),
        option(base, "rtx_a5500", 4, NvlinkBridge, Ddp),
        option(base, "rtx_a5500", 4, Pcie, ParallelExperiments),
    ]
}

pub fn article_comparison(base: &Scenario) -> Comparison {
    Comparison {
        options: article_options(base),
        decision: DecisionInputs::default(),
    }
}
