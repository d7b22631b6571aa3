//! 3-D CNN: Ben Hamida, Benoit, Lambert, Ben Amar, "3-D Deep Learning Approach for Remote
//! Sensing Image Classification", IEEE TGRS 56(8), 2018.
//! Reference implementation: github.com/nshaud/DeepHyperX, `models.py`, class `HamidaEtAl`
//! (dilation 1).
//!
//! Input [1, B, s, s], s = 5 by default. Conv3d 1->20 3x3x3 (padded by 1 when s = 3,
//! else unpadded) + ReLU; "pooling" Conv3d 20->20 (3,1,1) stride (2,1,1); Conv3d 20->35
//! 3x3x3 (spectral padding 1) + ReLU; Conv3d 35->35 (3,1,1) stride (2,1,1); Conv3d
//! 35->35 (3,1,1) + ReLU; Conv3d 35->35 (2,1,1) stride (2,1,1) + ReLU; flatten; Linear C.
//! No deviation: 45,196 parameters at B = 200, s = 5, 16 classes; 35,039 at B = 103, 9.

use super::cnn::{conv3d, no_options};
use super::transformer::at_least;
use super::ZooOptions;
use crate::graph::{ops, ModelBuilder, ModelSpec, Op};
use crate::problems::FieldError;

const FIRST: u64 = 20;
const SECOND: u64 = 35;

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    no_options(o, "the 3-D CNN")?;
    let bands = at_least("bands", o.bands, 3, "the first 3x3x3 convolution")?;
    let patch = u64::from(o.patch);
    // Two 3x3 convolutions, unpadded in space except the first when s = 3.
    if patch != 3 && patch < 5 {
        return Err(FieldError {
            field: "patch".into(),
            value: patch.to_string(),
            allowed: "3, or at least 5 (two unpadded 3x3 convolutions)".into(),
        });
    }
    let classes = at_least("classes", o.classes, 1, "one output per class")?;
    let first_padding = if patch == 3 { 1 } else { 0 };
    let spectral_pool = |channels| conv3d(channels, [3, 1, 1], [2, 1, 1], [1, 0, 0]);

    let mut b = ModelBuilder::new("3-D CNN (Hamida)", vec![1, bands, patch, patch]);
    b.push(ops::conv(3, FIRST, &[3], &[first_padding]))
        .push(ops::relu())
        .push(spectral_pool(FIRST))
        .push(ops::conv(3, SECOND, &[3], &[1, 0, 0]))
        .push(ops::relu())
        .push(spectral_pool(SECOND))
        .push(ops::conv(3, SECOND, &[3, 1, 1], &[1, 0, 0]))
        .push(ops::relu())
        .push(conv3d(SECOND, [2, 1, 1], [2, 1, 1], [1, 0, 0]))
        .push(ops::relu())
        .push(Op::Flatten)
        .push(ops::linear(classes));
    Ok(b.build())
}
