//! The zoo's way to write a layer list: `ModelBuilder` and the shorthand ops.

use super::{Layer, ModelSpec, Op};

/// Builder used by the model zoo: `b.push(op)` appends after the previous layer,
/// `b.push_from(name, &["a", "b"], op)` names a layer and its inputs.
pub struct ModelBuilder {
    spec: ModelSpec,
}

impl ModelBuilder {
    pub fn new(name: &str, input: Vec<u64>) -> Self {
        ModelBuilder {
            spec: ModelSpec {
                name: name.into(),
                input,
                layers: Vec::new(),
            },
        }
    }

    /// Appends an unnamed layer fed by the previous one.
    pub fn push(&mut self, op: Op) -> &mut Self {
        self.spec.layers.push(Layer {
            name: None,
            from: Vec::new(),
            shares: None,
            op,
        });
        self
    }

    /// Appends a named layer fed by the previous one.
    pub fn named(&mut self, name: &str, op: Op) -> &mut Self {
        self.push_from(name, &[], op)
    }

    /// Appends a named layer fed by the named layers (`"input"` = model input).
    pub fn push_from(&mut self, name: &str, from: &[&str], op: Op) -> &mut Self {
        self.spec.layers.push(Layer {
            name: Some(name.into()),
            from: from.iter().map(|s| s.to_string()).collect(),
            shares: None,
            op,
        });
        self
    }

    pub fn build(self) -> ModelSpec {
        self.spec
    }
}

/// Shorthand constructors for the zoo.
pub mod ops {
    use crate::graph::{Activation, Op};

    pub fn conv(dims: u8, out: u64, kernel: &[u64], padding: &[u64]) -> Op {
        Op::Conv {
            dims,
            out_channels: out,
            kernel: kernel.to_vec(),
            stride: vec![],
            padding: padding.to_vec(),
            dilation: vec![],
            groups: 1,
            bias: true,
        }
    }
    pub fn linear(out: u64) -> Op {
        Op::Linear {
            out_features: out,
            bias: true,
        }
    }
    pub fn act(kind: Activation) -> Op {
        Op::Act {
            kind,
            inplace: false,
        }
    }
    pub fn relu() -> Op {
        act(Activation::Relu)
    }
    pub fn dropout(p: f64) -> Op {
        Op::Dropout { p }
    }
}
