//! 1-D CNN: Hu, Huang, Wei, Zhang, Li, "Deep Convolutional Neural Networks for
//! Hyperspectral Image Classification", Journal of Sensors 2015.
//! Reference implementation: github.com/nshaud/DeepHyperX, `models.py`, class `HuEtAl`.
//!
//! Input [1, B]: the spectrum of one pixel (the patch option is not used). Conv1d with
//! 20 kernels of size ceil(B/9); max-pool of ceil(kernel/5); tanh; Linear 100, tanh;
//! Linear C. No deviation: 72,196 parameters at B = 200, 16 classes (Indian Pines).
//! `model.width` sets the number of conv kernels (paper: 20).

use super::cnn::{channels, no_size};
use super::transformer::at_least;
use super::ZooOptions;
use crate::graph::{ops, Activation, ModelBuilder, ModelSpec, Op};
use crate::problems::FieldError;

const KERNELS: u64 = 20;
const HIDDEN: u64 = 100;

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    no_size(o, "the 1-D CNN")?;
    let kernels = channels(o.width, KERNELS)?;
    let bands = at_least("bands", o.bands, 1, "one value per band")?;
    let classes = at_least("classes", o.classes, 1, "one output per class")?;
    // The paper's rules: kernel ceil(n1/9); DeepHyperX's pool ceil(kernel/5), which
    // leaves 30-40 pooled values as the paper recommends. Never larger than the input.
    let kernel = bands.div_ceil(9);
    let pool = kernel.div_ceil(5);

    let mut b = ModelBuilder::new("1-D CNN (Hu)", vec![1, bands]);
    b.push(ops::conv(1, kernels, &[kernel], &[0]))
        .push(Op::MaxPool {
            dims: 1,
            kernel: vec![pool],
            stride: vec![],
            padding: vec![],
            ceil_mode: false,
        })
        .push(ops::act(Activation::Tanh))
        .push(Op::Flatten)
        .push(ops::linear(HIDDEN))
        .push(ops::act(Activation::Tanh))
        .push(ops::linear(classes));
    Ok(b.build())
}
