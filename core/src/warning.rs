//! Non-fatal remarks on an estimate. Imports only `format` from the crate.

use serde::Serialize;

use crate::format::count;

/// A non-fatal remark on an estimate. `Display` gives the English sentence (the CLI's
/// JSON carries it); the web app words each kind in its own languages.
#[derive(Clone, Debug, PartialEq)]
pub enum Warning {
    /// No TF32 tensor cores: tf32 is estimated at the FP32 rate.
    NoTf32 { gpu: String },
    /// No BF16 support: PyTorch emulates bf16, estimated at the FP32 rate at best.
    NoBf16 { gpu: String },
    /// The dataset is not in the catalog: no epoch time.
    UnknownDataset { id: String },
    /// The card has no known price: the cost figures that contain it are not meaningful
    /// until cost.card_price_usd is set (the page shows "enter a price").
    PriceUnknown { gpu: String },
    /// The model has a recurrent layer: cuDNN's reserve space and workspaces for it, and
    /// its persistent kernel's rate (none published), are fitted on the only recurrent
    /// model measured, a GRU on an H200. The figures are its measured over estimated peak memory
    /// (`core/tests/measured_h200_memory.rs` checks them against its steps).
    RecurrentReserve,
    /// The card has no such link between its cards: the estimate uses its own (NVSwitch
    /// for an SXM module, else PCIe).
    LinkReplaced { gpu: String, nvswitch: bool },
    /// The batch is larger than the training samples a card gets per epoch: an epoch is
    /// one partial batch, and samples/s (at full batches) overstates it.
    BatchOverEpoch { batch: u32, samples: u64 },
    /// `ecc` is on for a card without ECC to turn on: it changes nothing.
    EccIgnored { gpu: String },
    /// More bands than the dataset's sensor delivers: estimated as asked.
    BandsOverDataset {
        bands: u32,
        dataset: String,
        raw: u32,
        used: u32,
    },
    /// A patch wider than the dataset's scene: estimated as asked.
    PatchOverScene {
        patch: u32,
        dataset: String,
        height: u32,
        width: u32,
    },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Warning::NoTf32 { gpu } => {
                write!(
                    f,
                    "{gpu} has no TF32 tensor cores: tf32 runs at the FP32 rate"
                )
            }
            Warning::NoBf16 { gpu } => write!(
                f,
                "{gpu} has no BF16 support: bf16 is emulated, estimated at the FP32 rate at best"
            ),
            Warning::UnknownDataset { id } => {
                write!(f, "unknown dataset {id}: epoch time not estimated")
            }
            Warning::PriceUnknown { gpu } => write!(
                f,
                "no price known for {gpu}: set cost.card_price_usd (the cost figures that need it are not meaningful until then)"
            ),
            Warning::LinkReplaced { gpu, nvswitch: true } => write!(
                f,
                "{gpu} is an SXM module, linked by NVSwitch: the estimate uses NVSwitch"
            ),
            Warning::LinkReplaced { gpu, .. } => write!(
                f,
                "{gpu} cannot use the chosen link between cards: the estimate uses PCIe"
            ),
            Warning::BatchOverEpoch { batch, samples } => write!(
                f,
                "the batch of {} is more than the {} training samples a card gets per epoch: an epoch is one partial batch",
                count(u64::from(*batch)),
                count(*samples)
            ),
            Warning::EccIgnored { gpu } => {
                write!(f, "{gpu} has no ECC to turn on: the ecc setting changes nothing")
            }
            Warning::BandsOverDataset { bands, dataset, raw, used } => write!(
                f,
                "{dataset} has {raw} bands ({used} after the usual removal): estimated for {bands} as asked"
            ),
            Warning::PatchOverScene { patch, dataset, height, width } => write!(
                f,
                "a {patch} px patch is larger than the {dataset} scene ({height} × {width} px): estimated as asked"
            ),
            Warning::RecurrentReserve => f.write_str(
                "cuDNN's RNN memory and speed are fitted on one GRU (H200: memory 0.9-1.1x this estimate); other recurrent layers are unchecked",
            ),
        }
    }
}

impl Serialize for Warning {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}
