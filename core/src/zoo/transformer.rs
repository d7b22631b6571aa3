//! The pre-norm encoder block the transformer presets (SSFTT, SpectralFormer, ViT) share,
//! plus what every preset uses: a helper to chain named layers and the option checks.

use crate::graph::{ops, Activation, ModelBuilder, Op};
use crate::problems::FieldError;

/// Appends named layers one after another, remembering the last one so residual adds
/// and branches can refer to it.
pub(crate) struct Chain<'a> {
    builder: &'a mut ModelBuilder,
    pub last: String,
}

impl<'a> Chain<'a> {
    /// Starts a chain fed by layer `from` ("input" = the model input).
    pub fn new(builder: &'a mut ModelBuilder, from: &str) -> Self {
        Chain {
            builder,
            last: from.into(),
        }
    }

    /// Appends layer `name` fed by the previous one.
    pub fn then(&mut self, name: &str, op: Op) -> &mut Self {
        let from = std::mem::replace(&mut self.last, name.into());
        self.builder.push_from(name, &[&from], op);
        self
    }

    /// Appends layer `name` fed by the named layers.
    pub fn join(&mut self, name: &str, from: &[&str], op: Op) -> &mut Self {
        self.builder.push_from(name, from, op);
        self.last = name.into();
        self
    }
}

/// One pre-norm encoder block as vit-pytorch writes it:
/// `x = x + Dropout(Attention(LayerNorm(x)))`,
/// `x = x + Dropout(Linear(Dropout(GELU(Linear(LayerNorm(x))))))`.
pub(crate) struct EncoderBlock {
    pub dim: u64,
    pub heads: u64,
    /// Per-head dimension; None = dim / heads.
    pub head_dim: Option<u64>,
    pub qkv_bias: bool,
    pub mlp_hidden: u64,
    /// Dropout probability after attention and in the MLP; 0 = no dropout layers.
    pub dropout: f64,
}

impl EncoderBlock {
    /// Appends the block after the chain's last layer, naming its layers `<prefix>.<part>`.
    pub fn push(&self, chain: &mut Chain, prefix: &str) {
        let name = |part: &str| format!("{prefix}.{part}");
        let block_input = chain.last.clone();
        chain.then(&name("norm1"), ops::layer_norm()).then(
            &name("attn"),
            Op::Attention {
                heads: self.heads,
                head_dim: self.head_dim,
                qkv_bias: self.qkv_bias,
                extra_params: 0,
            },
        );
        self.dropout_after(chain, &name("attn_drop"));
        let attn_out = chain.last.clone();
        chain.join(&name("attn_add"), &[&attn_out, &block_input], Op::Add);

        let mlp_input = chain.last.clone();
        chain
            .then(&name("norm2"), ops::layer_norm())
            .then(&name("fc1"), ops::linear(self.mlp_hidden))
            .then(&name("gelu"), ops::act(Activation::Gelu));
        self.dropout_after(chain, &name("mlp_drop1"));
        chain.then(&name("fc2"), ops::linear(self.dim));
        self.dropout_after(chain, &name("mlp_drop2"));
        let mlp_out = chain.last.clone();
        chain.join(&name("mlp_add"), &[&mlp_out, &mlp_input], Op::Add);
    }

    fn dropout_after(&self, chain: &mut Chain, name: &str) {
        if self.dropout > 0.0 {
            chain.then(name, ops::dropout(self.dropout));
        }
    }
}

/// Largest token width the `model.width` option accepts.
pub(crate) const MAX_WIDTH: u32 = 4096;

/// The token width: `width` if given (a multiple of `heads` up to `MAX_WIDTH`), else the
/// paper's `default`.
pub(crate) fn token_width(width: Option<u32>, default: u64, heads: u64) -> Result<u64, FieldError> {
    let Some(width) = width else {
        return Ok(default);
    };
    let width = u64::from(width);
    if width == 0 || width % heads != 0 || width > u64::from(MAX_WIDTH) {
        return Err(FieldError {
            field: "model.width".into(),
            value: width.to_string(),
            allowed: format!("a multiple of {heads} (the head count) from {heads} to {MAX_WIDTH}"),
        });
    }
    Ok(width)
}

/// `value` as u64 if it is at least `min`, else an error naming `field` and the reason.
pub(crate) fn at_least(field: &str, value: u32, min: u32, why: &str) -> Result<u64, FieldError> {
    if value < min {
        return Err(FieldError {
            field: field.into(),
            value: value.to_string(),
            allowed: format!("at least {min} ({why})"),
        });
    }
    Ok(u64::from(value))
}

/// Error for an option the preset does not have (e.g. `model.size` on SSFTT).
pub(crate) fn unused_option(field: &str, value: impl ToString, model: &str) -> FieldError {
    FieldError {
        field: field.into(),
        value: value.to_string(),
        allowed: format!("nothing: {model} has no such option"),
    }
}

/// `unused_option` if `value` is set (shown as its lowercase Debug form, e.g. "base").
pub(crate) fn reject_option<T: std::fmt::Debug>(
    field: &str,
    value: Option<T>,
    model: &str,
) -> Result<(), FieldError> {
    value.map_or(Ok(()), |v| {
        Err(unused_option(
            field,
            format!("{v:?}").to_ascii_lowercase(),
            model,
        ))
    })
}
