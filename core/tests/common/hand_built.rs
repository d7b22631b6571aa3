//! Layer figures built by hand (independent of the model analysis) and the performance
//! model run on them, for the `perf_*` tests.

use hsi_gpu_core::analysis::OpClass;
use hsi_gpu_core::gpu::GpuSpec;
use hsi_gpu_core::perf::PerfReport;
use hsi_gpu_core::report::LayerReport;
use hsi_gpu_core::scenario::Scenario;

/// Equal to about 1e-9 of the larger.
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Layer `i`: a convolution on tensor cores or a ReLU with the given work, activations
/// and parameters.
pub fn layer(i: usize, flops: f64, act_bytes: f64, params: u64, tensor_core: bool) -> LayerReport {
    LayerReport {
        name: format!("layer{i}"),
        kind: if tensor_core { "conv2d" } else { "relu" }.into(),
        output_shape: vec![1],
        params,
        weights: params,
        fwd_flops: flops,
        bwd_flops: 2.0 * flops,
        other_flops: act_bytes / 4.0,
        input_bytes: act_bytes,
        output_bytes: act_bytes,
        weight_bytes: params as f64 * 4.0,
        saved_bytes: act_bytes,
        tensor_core,
        kernels_fwd: 1,
        kernels_bwd: if tensor_core { 2 } else { 1 },
        host_ops: None,
        weight_queries: [0.0; 2],
        class: if tensor_core {
            OpClass::Conv
        } else {
            OpClass::Elementwise
        },
        groups: 1,
        param_tensors: u32::from(params > 0),
        scratch_bytes: 0.0,
        trainable_params: params,
        conv: None,
        fused_attention_flops: [0.0; 2],
        rnn_step_bytes: 0.0,
        persistent_steps: [0.0; 2],
        step_flops: 0.0,
    }
}

/// The layers' parameters.
pub fn params(layers: &[LayerReport]) -> u64 {
    layers.iter().map(|l| l.params).sum()
}

/// The layers' performance report in scenario `s` on `gpu`.
pub fn run(layers: &[LayerReport], s: &Scenario, gpu: &GpuSpec) -> PerfReport {
    hsi_gpu_core::performance(layers, params(layers), s, gpu).0
}
