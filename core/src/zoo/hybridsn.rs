//! HybridSN: Roy, Krishna, Dubey, Chaudhuri, "HybridSN: Exploring 3-D-2-D CNN Feature
//! Hierarchy for Hyperspectral Image Classification", IEEE GRSL 17(2), 2020.
//! Reference implementation: github.com/gokriznastic/HybridSN, `Hybrid-Spectral-Net.ipynb`
//! (Keras `Model` built in the notebook; kernels written (3,3,7) there because Keras puts
//! the bands last).
//!
//! Input [1, B, s, s] (B = PCA components: 30 for Indian Pines, 15 for Pavia/Salinas;
//! s = 25). Conv3d 1->8 (7,3,3), 8->16 (5,3,3), 16->32 (3,3,3), all unpadded + ReLU;
//! reshape to 32*(B-12) channels; Conv2d ->64 3x3 + ReLU; flatten; Linear 256, ReLU,
//! Dropout 0.4; Linear 128, ReLU, Dropout 0.4; Linear C. No deviation. At B = 30, s = 25,
//! 16 classes this is 5,122,176 parameters, the count the notebook prints.

use super::cnn::no_options;
use super::transformer::at_least;
use super::ZooOptions;
use crate::graph::{ops, ModelBuilder, ModelSpec, Op};
use crate::problems::FieldError;

/// Output channels of the three 3-D convolutions and their spectral kernel depths.
const CONV3D: [(u64, u64); 3] = [(8, 7), (16, 5), (32, 3)];
const CONV2D_CHANNELS: u64 = 64;
const HIDDEN: [u64; 2] = [256, 128];
const DROPOUT: f64 = 0.4;

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    no_options(o, "HybridSN")?;
    let spectral_shrink: u64 = CONV3D.iter().map(|(_, depth)| depth - 1).sum();
    let bands = at_least(
        "bands",
        o.bands,
        spectral_shrink as u32 + 1,
        "the unpadded 3-D kernels of depth 7, 5 and 3 take 12 bands",
    )?;
    let patch = at_least(
        "patch",
        o.patch,
        9,
        "four unpadded 3x3 convolutions take 8 pixels",
    )?;
    let classes = at_least("classes", o.classes, 1, "one output per class")?;

    let mut b = ModelBuilder::new("HybridSN", vec![1, bands, patch, patch]);
    for (channels, depth) in CONV3D {
        b.push(ops::conv(3, channels, &[depth, 3, 3], &[0]))
            .push(ops::relu());
    }
    let last_channels = CONV3D[CONV3D.len() - 1].0;
    b.push(Op::Reshape {
        shape: vec![
            last_channels * (bands - spectral_shrink),
            patch - 6,
            patch - 6,
        ],
    })
    .push(ops::conv(2, CONV2D_CHANNELS, &[3], &[0]))
    .push(ops::relu())
    .push(Op::Flatten);
    for hidden in HIDDEN {
        b.push(ops::linear(hidden))
            .push(ops::relu())
            .push(ops::dropout(DROPOUT));
    }
    b.push(ops::linear(classes));
    Ok(b.build())
}
