//! The HSI model zoo: each preset is a function of the input geometry (bands B, patch s,
//! classes) and, where the paper has one, a width or size option. Each model's source is
//! in its builder's doc comment, and `tools/validate_zoo.py` holds the same model in
//! PyTorch; `core/tests/pytorch_fixtures.rs` checks that both agree.

mod cnn;
pub mod dbda;
pub mod hamida3d;
pub mod hu1d;
pub mod hybridsn;
pub mod mae;
pub mod recurrent;
pub mod segformer;
pub mod spectralformer;
pub mod ssftt;
pub mod ssrn;
mod transformer;
pub mod unet;
pub mod unmixing;
pub mod vit;

use crate::choices::VitSize;
use crate::graph::ModelSpec;
use crate::problems::FieldError;

/// What a preset is built from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZooOptions {
    pub bands: u32,
    pub patch: u32,
    pub classes: u32,
    pub width: Option<u32>,
    pub size: Option<VitSize>,
}

impl ZooOptions {
    /// Options with the paper's width and size.
    pub fn new(bands: u32, patch: u32, classes: u32) -> Self {
        ZooOptions {
            bands,
            patch,
            classes,
            width: None,
            size: None,
        }
    }
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
    ZooEntry { id: "hu1d", name: "1-D CNN (Hu 2015)", source: "Hu et al., J. Sensors 2015; github.com/nshaud/DeepHyperX models.py HuEtAl", default_patch: 1, build: hu1d::build },
    ZooEntry { id: "hamida3d", name: "3-D CNN (Hamida 2018)", source: "Ben Hamida et al., IEEE TGRS 2018; github.com/nshaud/DeepHyperX models.py HamidaEtAl", default_patch: 5, build: hamida3d::build },
    ZooEntry { id: "hybridsn", name: "HybridSN (Roy 2020)", source: "Roy et al., IEEE GRSL 2020; github.com/gokriznastic/HybridSN", default_patch: 25, build: hybridsn::build },
    ZooEntry { id: "ssrn", name: "SSRN (Zhong 2018)", source: "Zhong et al., IEEE TGRS 2018; github.com/zilongzhong/SSRN, PyTorch port in lironui/Double-Branch-Dual-Attention-Mechanism-Network network.py SSRN_network", default_patch: 7, build: ssrn::build },
    ZooEntry { id: "dbda", name: "DBDA (Li 2020)", source: "Li et al., Remote Sensing 2020; github.com/lironui/Double-Branch-Dual-Attention-Mechanism-Network network.py DBDA_network_MISH", default_patch: 9, build: dbda::build },
    ZooEntry { id: "unet", name: "U-Net segmenter (whole scene)", source: "Our simplified U-Net (Ronneberger 2015) for whole-scene HSI, after FreeNet (Zheng 2020, github.com/Z-Zheng/FreeNet)", default_patch: unet::DEFAULT_TILE, build: unet::build },
    ZooEntry { id: "ssftt", name: "SSFTT (Sun 2022)", source: "Sun et al., IEEE TGRS 2022; github.com/zgr6010/HSI_SSFTT SSFTTnet.py", default_patch: 13, build: ssftt::build },
    ZooEntry { id: "spectralformer", name: "SpectralFormer (Hong 2021)", source: "Hong et al., IEEE TGRS 2022; github.com/danfenghong/IEEE_TGRS_SpectralFormer vit_pytorch.py", default_patch: 7, build: spectralformer::build },
    ZooEntry { id: "mou_rnn", name: "GRU RNN (Mou 2017)", source: "Mou et al., IEEE TGRS 2017; github.com/nshaud/DeepHyperX models.py MouEtAl", default_patch: 1, build: recurrent::build },
    ZooEntry { id: "unmixing_ae", name: "Unmixing autoencoder (Palsson 2018)", source: "Palsson et al., IEEE Access 2018 (DAEU: encoder 9R-6R-3R-R, linear decoder)", default_patch: 1, build: unmixing::build },
    ZooEntry { id: "segformer", name: "SegFormer-B0 segmenter (Xie 2021)", source: "Xie et al., NeurIPS 2021; github.com/NVlabs/SegFormer mix_transformer.py mit_b0, segformer_head.py", default_patch: segformer::DEFAULT_TILE, build: segformer::build },
    ZooEntry { id: "vit", name: "ViT HSI foundation model", source: "ViT (Dosovitskiy 2021) as in SpectralGPT / HyperSIGMA, simplified", default_patch: vit::DEFAULT_TILE, build: vit::build },
    ZooEntry { id: mae::SPATIAL, name: "MAE pre-training, ViT (HyperSIGMA)", source: "MAE (He 2022); HyperSIGMA (Wang 2025)", default_patch: vit::DEFAULT_TILE, build: mae::build_spatial },
    ZooEntry { id: mae::SPECTRAL, name: "MAE pre-training, 3-D tokens (SpectralGPT)", source: "SpectralGPT (Hong 2024)", default_patch: 128, build: mae::build_spectral },
];

/// Builds `entry` for `o`; the MAE presets take `mae`'s mask ratio and decoder.
pub fn build(
    entry: &ZooEntry,
    o: &ZooOptions,
    mae: &crate::foundation::Mae,
) -> Result<ModelSpec, FieldError> {
    match entry.id {
        mae::SPATIAL => mae::build(o, mae, None),
        mae::SPECTRAL => mae::build(o, mae, Some(mae::SPECTRAL_GROUP)),
        _ => (entry.build)(o),
    }
}

pub fn zoo_entry(id: &str) -> Option<&'static ZooEntry> {
    ZOO.iter().find(|e| e.id == id)
}

pub fn zoo_ids() -> Vec<&'static str> {
    ZOO.iter().map(|e| e.id).collect()
}
