//! The HSI model zoo: each preset is a function of the input geometry (bands B, patch s,
//! classes) and, where the paper has one, a width or size option. Each model's source is
//! in its builder's doc comment, and `tools/validate_zoo.py` holds the same model in
//! PyTorch; `core/tests/pytorch_fixtures.rs` checks that both agree.

pub mod spectralformer;
pub mod ssftt;
mod transformer;
pub mod vit;

use crate::graph::ModelSpec;
use crate::scenario::{FieldError, VitSize};

/// What a preset is built from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZooOptions {
    pub bands: u32,
    pub patch: u32,
    pub classes: u32,
    pub width: Option<u32>,
    pub size: Option<VitSize>,
}

pub struct ZooEntry {
    pub id: &'static str,
    pub name: &'static str,
    /// Paper and reference implementation.
    pub source: &'static str,
    /// Patch side the paper uses.
    pub default_patch: u32,
    pub build: fn(&ZooOptions) -> Result<ModelSpec, FieldError>,
}

/// Every preset, in the order the UI lists them.
pub static ZOO: &[ZooEntry] = &[
    // Entries are added by each model's module.
    ZooEntry { id: "ssftt", name: "SSFTT (Sun 2022)", source: "Sun et al., IEEE TGRS 2022; github.com/zgr6010/HSI_SSFTT SSFTTnet.py", default_patch: 13, build: ssftt::build },
    ZooEntry { id: "spectralformer", name: "SpectralFormer (Hong 2021)", source: "Hong et al., IEEE TGRS 2022; github.com/danfenghong/IEEE_TGRS_SpectralFormer vit_pytorch.py", default_patch: 7, build: spectralformer::build },
    ZooEntry { id: "vit", name: "ViT HSI foundation model", source: "ViT (Dosovitskiy 2021) as in SpectralGPT / HyperSIGMA, simplified", default_patch: vit::DEFAULT_TILE, build: vit::build },
];

pub fn zoo_entry(id: &str) -> Option<&'static ZooEntry> {
    ZOO.iter().find(|e| e.id == id)
}

pub fn zoo_ids() -> Vec<&'static str> {
    ZOO.iter().map(|e| e.id).collect()
}
