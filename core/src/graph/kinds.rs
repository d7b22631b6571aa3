//! The kinds a layer's op takes (activations, interpolation and padding modes, what an
//! element-wise function keeps, reductions, recurrent cells), each by its JSON id.

use crate::json::json_enum;

json_enum! {
    pub enum Activation {
        Relu = "relu",
        LeakyRelu = "leaky_relu",
        Gelu = "gelu",
        Mish = "mish",
        Silu = "silu",
        Tanh = "tanh",
        Sigmoid = "sigmoid",
        /// Softmax over one dimension (which one changes nothing counted).
        Softmax = "softmax",
        /// x * relu6(x + 3) / 6 (MobileNetV3).
        Hardswish = "hardswish",
        /// relu6(x + 3) / 6 (MobileNetV3's squeeze-excitation gate).
        Hardsigmoid = "hardsigmoid",
        /// min(max(x, 0), 6); keeps its input (in place too: autograd keeps a copy).
        Relu6 = "relu6",
        /// log(softmax(x)), over one dimension: kept and computed as softmax.
        LogSoftmax = "log_softmax",
    }
}

json_enum! {
    /// How `Op::Upsample` fills the new positions (neither keeps anything for backward).
    pub enum UpsampleMode {
        Nearest = "nearest",
        /// Linear, bilinear or trilinear interpolation (by `dims`), align_corners=False.
        Linear = "linear",
        /// Bicubic interpolation (4 x 4 neighbours).
        Cubic = "cubic",
    }
}

json_enum! {
    /// How `Op::Pad` fills the border (F.pad's `mode`).
    pub enum PadMode {
        /// A constant value; keeps nothing for backward.
        Constant = "constant",
        /// The mirror image without the edge; keeps its input (for the sizes).
        Reflect = "reflect",
        /// The edge repeated; keeps its input.
        Replicate = "replicate",
        /// The opposite side (a wrap-around, made of slices); keeps nothing.
        Circular = "circular",
    }
}

json_enum! {
    /// What an element-wise function (`Op::Pointwise`) keeps for backward.
    pub enum Keeps {
        /// x * c, x + c, -x, x / c, where: the gradient needs no tensor.
        Nothing = "nothing",
        /// x ** c, abs, clamp, ELU, softplus, sin: the gradient reads the input.
        Input = "input",
        /// exp, sqrt, rsqrt, c / x: the gradient reads the output.
        Output = "output",
    }
}

json_enum! {
    /// A reduction (`Op::Reduce`) and what it keeps: sum and mean nothing; var its input;
    /// max and min (over a dimension, with indices) the int64 indices; amax, amin,
    /// prod, std, norm and logsumexp their input and output.
    pub enum Reduction {
        Sum = "sum",
        Mean = "mean",
        Max = "max",
        Min = "min",
        Amax = "amax",
        Amin = "amin",
        Prod = "prod",
        Var = "var",
        Std = "std",
        Norm = "norm",
        Logsumexp = "logsumexp",
    }
}

json_enum! {
    /// The cell `Op::Rnn` repeats over the steps.
    pub enum RnnCell {
        /// nn.LSTM: 4 gates (input, forget, cell, output) and a cell state.
        Lstm = "lstm",
        /// nn.GRU: 3 gates (reset, update, new).
        Gru = "gru",
    }
}

impl RnnCell {
    /// Gate blocks of the weight matrices (4 x hidden rows for an LSTM).
    pub fn gates(self) -> u64 {
        match self {
            RnnCell::Lstm => 4,
            RnnCell::Gru => 3,
        }
    }
}
