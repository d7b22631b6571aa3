//! nn.LSTM and nn.GRU (`Op::Rnn`): parameters, FLOPs and kept bytes as PyTorch's native
//! implementation (aten's `_lstm_impl` / `_gru_impl` cells, what runs on the CPU with
//! oneDNN off) computes them, checked against saved-tensor hooks by
//! `tools/validate_zoo.py` and `tools/export_coverage.py`.
//!
//! - Parameters: per layer and direction W_ih [G x H, D_in], W_hh [G x H, H] and two
//!   biases of G x H (G = 4 gates for an LSTM, 3 for a GRU), torch's count.
//! - FLOPs: the gate matmuls (multiply-add = 2): the input projection of all T steps at
//!   once and one hidden-state matmul per step. torch.utils.flop_counter counts exactly
//!   these on the native path; it counts 0 for cuDNN's `_cudnn_rnn` (the GPU) and
//!   oneDNN's `mkldnn_rnn` (the CPU's default), whose kernels do the same matmuls.
//!   Backward: the weight gradients, the input's gradient where the input needs one,
//!   and the hidden state's gradient at every step but the first (h0 is a constant).
//! - Kept: the input projection's operand (the layer's input; the first layer's
//!   batch-first input is transposed, so each direction keeps a contiguous copy), and
//!   per step seven hidden-sized tensors: an LSTM keeps its 4 gate activations, h(t-1),
//!   c(t-1) and tanh(c(t)); a GRU its 3 hidden-side gates, h(t-1), the new gate, its
//!   pre-reset hidden part and h(t-1) - n(t). Under autocast (CUDA casts `_cudnn_rnn`'s
//!   inputs and weights to 16 bit) all of it is 16-bit, plus the copies of the weights
//!   whose operand needs a gradient (W_ih's only past the data, W_hh's from step 2).
//!   cuDNN on the GPU keeps a reserve space of its own layout instead of the per-step
//!   tensors: the layer reports its step unit (`rnn_step_bytes`, one hidden-sized value
//!   per step), which the memory model scales (`memory.rs`: the reserve, and
//!   `perf.cudnn.rnn_workspace_per_step`).

use super::ctx::{bad, Ctx, LayerAccount, OpResult, Value};
use crate::graph::RnnCell;

/// Hidden-sized tensors one step keeps per sample (see above).
pub const KEPT_PER_STEP: u64 = 7;

/// Most stacked layers one op may have (deep RNNs stop far below).
pub const MAX_RNN_LAYERS: u64 = 100;

/// The recurrent layer's shape: what `Op::Rnn` carries.
pub(super) struct Recurrent {
    pub cell: RnnCell,
    pub hidden: u64,
    pub layers: u64,
    pub bidirectional: bool,
    pub bias: bool,
    pub batch_first: bool,
}

pub(super) fn rnn(ctx: &mut Ctx, x: &Value, r: &Recurrent) -> OpResult {
    let [steps, _] = x.shape[..] else {
        return Err(bad(
            format!("input shape {:?}", x.shape),
            "a sequence [T, D] (steps, features per step)",
        ));
    };
    if r.hidden == 0 || !(1..=MAX_RNN_LAYERS).contains(&r.layers) {
        return Err(bad(
            format!("hidden {}, layers {}", r.hidden, r.layers),
            format!("a positive hidden size, 1 to {MAX_RNN_LAYERS} layers"),
        ));
    }
    let directions = 1 + u64::from(r.bidirectional);
    let rows = r.cell.gates().saturating_mul(r.hidden);
    let dtype = ctx.compute_dtype(x.dtype);
    let t = steps as f64;
    let mut account = LayerAccount {
        tensor_core: true,
        ..LayerAccount::default()
    };
    // A frozen recurrent layer that no gradient reaches (a frozen prefix) runs forward
    // only: autograd keeps nothing and backward skips it.
    let needs_grad = ctx.train.params || x.requires_grad;
    let mut input = x.clone();
    for layer in 0..r.layers {
        let features = input.shape[1];
        let weights = rows.saturating_mul(features.saturating_add(r.hidden));
        let biases = if r.bias { 2 * rows } else { 0 };
        account.params = account
            .params
            .saturating_add(directions.saturating_mul(weights.saturating_add(biases)));
        let projection = 2.0 * t * (rows as f64) * features as f64;
        let recurrent = 2.0 * t * (rows as f64) * r.hidden as f64;
        let per_direction_bwd = projection
            + if input.requires_grad { projection } else { 0.0 }
            + recurrent * (2.0 - 1.0 / t);
        account.fwd_flops += directions as f64 * (projection + recurrent);
        if needs_grad {
            account.bwd_flops += directions as f64 * per_direction_bwd;
        }
        account.other_flops += directions as f64 * t * (4.0 * rows as f64 + 6.0 * r.hidden as f64);

        if needs_grad {
            if layer == 0 && r.batch_first {
                let operand = ctx.matmul_operand(&input, false);
                let copy = saturating_copy(steps, features, operand.dtype);
                for _ in 0..directions {
                    account.saved += ctx.keep_new(copy, 0);
                }
            } else {
                let operand = ctx.matmul_operand(&input, false);
                account.saved += ctx.keep(operand.storage);
            }
            account.rnn_step_per_sample +=
                saturating_copy(steps, r.hidden, dtype).saturating_mul(directions) as f64;
            let per_step = KEPT_PER_STEP.saturating_mul(r.hidden);
            account.saved += ctx.keep_new(
                saturating_copy(steps, per_step, dtype).saturating_mul(directions),
                0,
            );
            // A weight's 16-bit copy is kept where its operand needs a gradient: W_ih's
            // when the input does, W_hh's from the second step on (h0 is a constant).
            let copied =
                u64::from(input.requires_grad) * features + u64::from(steps > 1) * r.hidden;
            account.saved +=
                ctx.keep_weight_copy(rows.saturating_mul(copied).saturating_mul(directions));
        }
        // The input projection of every step, a layer at a time (cuDNN's workspace, the
        // native cells' precomputed gates).
        let workspace = saturating_copy(steps, rows, dtype).saturating_mul(directions) as f64;
        account.scratch_per_sample = account.scratch_per_sample.max(workspace);
        input = ctx.fresh(
            vec![steps, directions.saturating_mul(r.hidden)],
            dtype,
            needs_grad,
        );
    }
    // cuDNN: one input-projection GEMM per layer and direction, then the recurrence:
    // one persistent kernel over every step where PyTorch picks one, else a GEMM and a
    // fused gate kernel per step; backward about twice the standard algorithm's kernels,
    // or the persistent kernel, the input gradient's GEMM and the weights' two (none
    // where no gradient reaches the layer).
    let (forward, backward) = (
        r.hidden <= PERSISTENT_FORWARD,
        r.hidden <= PERSISTENT_BACKWARD,
    );
    let per_stack = |kernels: u64| {
        u32::try_from((r.layers * directions).saturating_mul(kernels)).unwrap_or(u32::MAX)
    };
    let standard = 1 + 2 * steps;
    account.kernels_fwd = per_stack(if forward { 2 } else { standard });
    account.kernels_bwd = match (needs_grad, backward) {
        (false, _) => 0,
        (true, true) => per_stack(4),
        (true, false) => per_stack(2 * standard),
    };
    let sequential = (steps as f64) * (r.layers * directions) as f64;
    let each = |persistent: bool| if persistent { sequential } else { 0.0 };
    account.persistent_steps = [each(forward), each(backward && needs_grad)];
    account.step_flops_per_sample = 2.0 * (rows as f64) * r.hidden as f64;
    // The host dispatches one `_cudnn_rnn` for every layer and step, plus h0's zeros and
    // its view (torch/nn/modules/rnn.py); autograd runs one CudnnRnnBackward node and the
    // view's. Measured on an H200: 2.2 ms a step for a 200-step GRU (measured_h200.rs).
    // Under autocast (aten/src/ATen/cudnn/AutocastRNN.cpp) every forward also zeroes a
    // 16-bit flat buffer, copies each weight and bias into it (`copy_weights_to_flat_buf_views`),
    // and casts the input and h0: ops the host dispatches, and autograd runs each copy's
    // backward.
    let autocast = ctx.precision.is_autocast();
    let copies = if autocast {
        let per_stack = 2 + 2 * u64::from(r.bias);
        u32::try_from(per_stack * r.layers * directions).unwrap_or(u32::MAX)
    } else {
        0
    };
    let casts = if autocast { AUTOCAST_RNN_OPS } else { 0 };
    account.host_ops = Some([
        RNN_HOST_OPS_FWD.saturating_add(casts + copies),
        RNN_HOST_OPS_BWD.saturating_add(copies),
    ]);
    // PyTorch finds each weight's place in cuDNN's flat buffer with `get_parameters`:
    // `cudnnGetRNNWeightParams` 100 times for every gate's input-side and hidden-side
    // matrix and bias of every layer and direction (aten/src/ATen/native/cudnn/RNN.cpp,
    // cuDNN's v8 API), in backward for the weights' gradients and, under autocast, in
    // forward, where the weights are cast into a new flat buffer every step
    // (aten/src/ATen/cudnn/AutocastRNN.cpp).
    let queries = (100 * 2 * 2 * r.cell.gates() * r.layers * directions) as f64;
    account.weight_queries = [
        if autocast { queries } else { 0.0 },
        if ctx.train.params { queries } else { 0.0 },
    ];
    // Batch first: the output is the time-major result transposed (a strided view).
    input.contiguous = !r.batch_first;
    input.leading_contiguous = input.contiguous;
    Ok((input, account))
}

/// The widest LSTM or GRU whose forward and whose backward PyTorch has cuDNN run as one
/// persistent kernel over all steps (`CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H`):
/// `use_rnn_persist_small_h` in ATen's `native/cudnn/RNN.cpp` (PyTorch 1.11 on,
/// pytorch/pytorch#62143; cuDNN 8.2.1 and a card of compute capability 6.0 or later, which
/// every card in the catalog is), for inputs neither packed nor float64 (the planner's are
/// neither).
const PERSISTENT_FORWARD: u64 = 192;
const PERSISTENT_BACKWARD: u64 = 128;

const RNN_HOST_OPS_FWD: u32 = 3;
const RNN_HOST_OPS_BWD: u32 = 2;
/// Autocast's flat buffer's zeros and the input's and h0's casts.
const AUTOCAST_RNN_OPS: u32 = 3;

fn saturating_copy(steps: u64, features: u64, dtype: u64) -> u64 {
    steps.saturating_mul(features).saturating_mul(dtype)
}
