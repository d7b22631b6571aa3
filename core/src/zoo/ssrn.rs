//! SSRN: Zhong, Li, Luo, Chapman, "Spectral-Spatial Residual Network for Hyperspectral
//! Image Classification: A 3-D Deep Learning Framework", IEEE TGRS 56(2), 2018.
//! Original (Keras): github.com/zilongzhong/SSRN, `Utils/ssrn_SS_IN.py`. Mirrored here:
//! its PyTorch port github.com/lironui/Double-Branch-Dual-Attention-Mechanism-Network,
//! `global_module/network.py`, class `SSRN_network` (with its `Residual` block).
//!
//! Input [1, s, s, B] (bands last, as the port), s = 7. Conv3d 1->24 (1,1,7) stride
//! (1,1,2) + BN + ReLU; two spectral residual blocks (1,1,7); Conv3d 24->128
//! (1,1,ceil((B-6)/2)) + BN + ReLU, which leaves one spectral position; permute the 128
//! channels into the spectral axis; Conv3d 1->24 (3,3,128) + BN + ReLU; two spatial
//! residual blocks (3,3,1); global average pool over the remaining (s-2)x(s-2); Linear
//! C. A residual block is conv + ReLU + BN + ReLU, conv + BN, add the input, ReLU.
//! Deviation: the port's AvgPool3d is fixed at (5,5,1), global only at s = 7; here an
//! adaptive pool makes it global at every s (same cost at s = 7).
//! At B = 200, s = 7, 16 classes this is 364,168 parameters (the Keras original reports
//! 346,144 trainable ones; its blocks differ slightly). `model.width` sets the 24 kernels.

use super::cnn::{channels, conv3d, no_size};
use super::transformer::{at_least, Chain};
use super::ZooOptions;
use crate::graph::{ops, ModelBuilder, ModelSpec, Op};
use crate::problems::FieldError;

const KERNELS: u64 = 24;
const SPECTRAL_FEATURES: u64 = 128;
const SPECTRAL_KERNEL: u64 = 7;

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    no_size(o, "SSRN")?;
    let kernels = channels(o.width, KERNELS)?;
    let bands = at_least(
        "bands",
        o.bands,
        7,
        "the first spectral kernel spans 7 bands",
    )?;
    let patch = at_least("patch", o.patch, 3, "one unpadded 3x3 convolution")?;
    let classes = at_least("classes", o.classes, 1, "one output per class")?;

    let mut b = ModelBuilder::new("SSRN", vec![1, patch, patch, bands]);
    let mut c = Chain::new(&mut b, "input");
    c.then(
        "conv1",
        conv3d(kernels, [1, 1, SPECTRAL_KERNEL], [1, 1, 2], [0, 0, 0]),
    )
    .then("bn1", Op::BatchNorm)
    .then("relu1", ops::relu());
    let spectral = ([1, 1, SPECTRAL_KERNEL], [0, 0, SPECTRAL_KERNEL / 2]);
    residual(&mut c, "spectral_res1", kernels, spectral);
    residual(&mut c, "spectral_res2", kernels, spectral);
    // The kernel spans all remaining spectral positions: floor((B-7)/2)+1 = ceil((B-6)/2).
    let depth = (bands - 6).div_ceil(2);
    c.then(
        "conv2",
        conv3d(SPECTRAL_FEATURES, [1, 1, depth], [1, 1, 1], [0, 0, 0]),
    )
    .then("bn2", Op::BatchNorm)
    .then("relu2", ops::relu())
    .then(
        "to_spatial",
        Op::Permute {
            order: vec![3, 1, 2, 0],
        },
    )
    .then(
        "conv3",
        conv3d(kernels, [3, 3, SPECTRAL_FEATURES], [1, 1, 1], [0, 0, 0]),
    )
    .then("bn3", Op::BatchNorm)
    .then("relu3", ops::relu());
    let spatial = ([3, 3, 1], [1, 1, 0]);
    residual(&mut c, "spatial_res1", kernels, spatial);
    residual(&mut c, "spatial_res2", kernels, spatial);
    c.then(
        "avgpool",
        Op::AdaptiveAvgPool {
            dims: 3,
            output: vec![1],
        },
    )
    .then("flatten", Op::Flatten)
    .then("fc", ops::linear(classes));
    Ok(b.build())
}

/// lironui's `Residual`: conv + ReLU + BN + ReLU, conv + BN, add the block input, ReLU.
fn residual(c: &mut Chain, prefix: &str, kernels: u64, (kernel, padding): ([u64; 3], [u64; 3])) {
    let name = |part: &str| format!("{prefix}.{part}");
    let block_input = c.last.clone();
    let conv = || conv3d(kernels, kernel, [1, 1, 1], padding);
    c.then(&name("conv1"), conv())
        .then(&name("relu1"), ops::relu())
        .then(&name("bn1"), Op::BatchNorm)
        .then(&name("relu2"), ops::relu())
        .then(&name("conv2"), conv())
        .then(&name("bn2"), Op::BatchNorm)
        .join(&name("add"), &[&name("bn2"), &block_input], Op::Add)
        .then(&name("relu3"), ops::relu());
}
