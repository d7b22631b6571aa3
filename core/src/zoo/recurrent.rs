//! Band-sequence GRU classifier: Mou, Ghamisi, Zhu, "Deep Recurrent Neural Networks for
//! Hyperspectral Image Classification", IEEE TGRS 55(7), 2017.
//! Reference implementation: github.com/nshaud/DeepHyperX, `models.py`, class `MouEtAl`.
//!
//! Input [B, 1]: one pixel's spectrum as a sequence of B steps of one value (the patch
//! option is not used). One GRU layer of 64 units over the bands; every step's output,
//! band-major as DeepHyperX permutes it, flattened to 64 x B; BatchNorm1d; tanh; Linear C.
//! Deviation: the paper's PRetanh activation is tanh, as in DeepHyperX, and the GRU
//! reads the sequence batch-first (DeepHyperX permutes a time-major view: the same
//! layers, parameters and kept bytes). `model.width` sets the GRU's units (paper: 64).

use super::cnn::{channels, no_size};
use super::transformer::at_least;
use super::ZooOptions;
use crate::graph::{ops, Activation, ModelBuilder, ModelSpec, Op, RnnCell};
use crate::problems::FieldError;

const UNITS: u64 = 64;

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    no_size(o, "the GRU RNN")?;
    let units = channels(o.width, UNITS)?;
    let bands = at_least("bands", o.bands, 1, "one step per band")?;
    let classes = at_least("classes", o.classes, 1, "one output per class")?;
    let mut b = ModelBuilder::new("GRU RNN (Mou)", vec![bands, 1]);
    b.push(Op::Rnn {
        cell: RnnCell::Gru,
        hidden: units,
        layers: 1,
        bidirectional: false,
        bias: true,
        batch_first: true,
    })
    .push(Op::Permute { order: vec![1, 0] })
    .push(Op::Flatten)
    .push(Op::BatchNorm)
    .push(ops::act(Activation::Tanh))
    .push(ops::linear(classes));
    Ok(b.build())
}
