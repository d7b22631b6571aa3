//! Whole-scene U-Net segmenter: our simplified definition, after U-Net (Ronneberger,
//! Fischer, Brox, MICCAI 2015) and FreeNet (Zheng, Zhong, Ma, Zhang, "FPGA: Fast Patch-Free
//! Global Learning Framework for Fully End-to-End Hyperspectral Image Classification",
//! IEEE TGRS 2020, github.com/Z-Zheng/FreeNet), which train a fully convolutional
//! encoder-decoder on whole scenes instead of patches. Not FreeNet itself.
//!
//! Input [B, s, s]: a tile of the scene with every band as a channel; s a multiple of 16.
//! Four encoder levels of (Conv2d 3x3 + BN + ReLU) x 2, each followed by a 2x2 max-pool;
//! a bottleneck double conv at s/16; four decoder levels of nearest x2 upsample, concat
//! with the encoder level's output (upsampled first), double conv; Conv2d 1x1 to the
//! classes. Per-pixel cross-entropy. `model.width` sets the first level's channels
//! (default 32), doubled at each level down (32, 64, 128, 256, bottleneck 512).

use super::cnn::{channels, no_size};
use super::transformer::{at_least, Chain};
use super::ZooOptions;
use crate::graph::{ops, ModelBuilder, ModelSpec, Op, UpsampleMode};
use crate::problems::FieldError;

const LEVELS: u32 = 4;
const BASE_WIDTH: u64 = 32;
/// Default tile side: a 256 x 256 crop of the scene.
pub const DEFAULT_TILE: u32 = 256;

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    no_size(o, "the U-Net")?;
    let base = channels(o.width, BASE_WIDTH)?;
    let bands = at_least("bands", o.bands, 1, "one channel per band")?;
    let classes = at_least("classes", o.classes, 1, "one output per class")?;
    let factor = 1u32 << LEVELS;
    if o.patch == 0 || !o.patch.is_multiple_of(factor) {
        return Err(FieldError {
            field: "patch".into(),
            value: o.patch.to_string(),
            allowed: format!("a positive multiple of {factor} (four 2x2 max-pools)"),
        });
    }
    let tile = u64::from(o.patch);

    let mut b = ModelBuilder::new("U-Net (whole scene)", vec![bands, tile, tile]);
    let mut c = Chain::new(&mut b, "input");
    let mut skips = Vec::new();
    for level in 0..LEVELS {
        double_conv(&mut c, &format!("down{level}"), base << level);
        skips.push(c.last.clone());
        c.then(
            &format!("pool{level}"),
            Op::MaxPool {
                dims: 2,
                kernel: vec![2],
                stride: vec![],
                padding: vec![],
                ceil_mode: false,
            },
        );
    }
    double_conv(&mut c, "bottleneck", base << LEVELS);
    for level in (0..LEVELS).rev() {
        let up = format!("up{level}");
        c.then(
            &up,
            Op::Upsample {
                dims: 2,
                scale: 2,
                mode: UpsampleMode::Nearest,
            },
        )
        .join(
            &format!("concat{level}"),
            &[&up, &skips[level as usize]],
            Op::Concat { axis: 0 },
        );
        double_conv(&mut c, &format!("dec{level}"), base << level);
    }
    c.then("head", ops::conv(2, classes, &[1], &[0]));
    Ok(b.build())
}

/// (Conv2d 3x3 padded + BN + ReLU) x 2 to `width` channels, layers named `<prefix>.<part>`.
fn double_conv(c: &mut Chain, prefix: &str, width: u64) {
    for i in 1..=2 {
        c.then(
            &format!("{prefix}.conv{i}"),
            ops::conv(2, width, &[3], &[1]),
        )
        .then(&format!("{prefix}.bn{i}"), Op::BatchNorm)
        .then(&format!("{prefix}.relu{i}"), ops::relu());
    }
}
