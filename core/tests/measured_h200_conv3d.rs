//! 3-D convolutions on one NVIDIA H200 SXM: the HSI 3-D CNNs' measured steps with and
//! without `torch.backends.cudnn.benchmark` (the steps `measured_h200.rs` compares, read
//! by `common/h200.rs`), and single convolutions timed alone (`tools/measure_conv.py`,
//! fixture `measured_h200/conv.jsonl`) against the device model, whose channel terms and
//! Hopper 3-D factors the C -> C sweep fitted and the zoo's layers check.

use common::h200::{cases, Case};
use common::median;
use hsi_gpu_core::analysis::analyze;
use hsi_gpu_core::assumptions::PerfAssumptions;
use hsi_gpu_core::device::{device_layer, Maths};
use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::graph::ModelSpec;
use hsi_gpu_core::scenario::Precision;

mod common;

/// cuDNN's own choice of 3-D convolution algorithms (the default) against timing them
/// (`torch.backends.cudnn.benchmark = True`), measured: the estimate assumes the timed ones.
#[test]
fn cudnn_benchmark_speeds_up_every_3d_cnn_measured() {
    let cases = cases();
    for bench in cases
        .iter()
        .filter(|c| c.cudnn_benchmark && c.model != "resnet50")
    {
        let label = bench.label.trim_end_matches(" bench");
        let Some(default) = cases
            .iter()
            .find(|c| !c.cudnn_benchmark && c.label == label)
        else {
            continue;
        };
        let step = |c: &Case| c.c.term("step_time_s").unwrap().measured;
        let speedup = step(default) / step(bench);
        println!("{label}: cudnn.benchmark {speedup:.2}x faster");
        assert!(speedup > 1.0, "{label}: {speedup}");
    }
}

/// Single 3-D convolutions timed alone (`tools/measure_conv.py`, cudnn.benchmark on): the
/// device model's forward + backward time of each, analysed as a one-layer model. The C ->
/// C sweep fitted `conv3d_*_half` and the Hopper factors (`perf.cudnn.hopper_conv3d_*`);
/// the zoo's layers check them.
#[test]
fn single_3d_convolutions_against_the_device_model() {
    let now = PerfAssumptions::default();
    // The model before the channel terms: one rate per class (fitted on the published
    // 3-D U-Net alone).
    let mut before = now.clone();
    before.device.conv3d_channels_half = 0.0;
    before.device.conv3d_fp32_channels_half = 0.0;
    before.device.conv3d_depth_half = 0.0;
    before.device.conv3d_tensor_factor = 0.14;
    before.device.conv3d_fp32_factor = 0.5;
    before.cudnn.hopper_conv3d_fp32_factor = 1.0;
    before.cudnn.hopper_conv3d_tensor_factor = 1.0;
    let (sweep, zoo) = conv_factors(&now);
    let (_, zoo_before) = conv_factors(&before);
    println!("median estimated / measured: sweep {sweep:.2}, zoo layers {zoo:.2} (before the channel terms {zoo_before:.2})");
    let off = |x: f64| x.ln().abs();
    assert!(off(sweep) < 1.1f64.ln(), "sweep {sweep:.2}");
    assert!(
        off(zoo) < 1.4f64.ln() && off(zoo) < off(zoo_before) / 2.0,
        "zoo layers {zoo:.2}"
    );
}

/// Median estimated / measured time of the sweep's and the zoo's compute-bound
/// convolutions (forward >= 1 GFLOP; the rest is the host's in a loop of one layer).
fn conv_factors(a: &PerfAssumptions) -> (f64, f64) {
    let gpu = gpu_by_id("h200_sxm").unwrap();
    let (mut sweep, mut zoo) = (Vec::new(), Vec::new());
    for r in common::h200::records("conv.jsonl") {
        let kernel = r["kernel"].as_array().unwrap();
        if !r["cudnn_benchmark"].as_bool().unwrap()
            || kernel.len() != 3
            || r["forward_flops"].as_f64().unwrap() < 1e9
        {
            continue;
        }
        let input = &r["input"];
        let spec: ModelSpec = serde_json::from_value(serde_json::json!({
            "name": "conv", "input": input.as_array().unwrap()[1..],
            "layers": [{"name": "conv", "from": ["input"], "op": "conv", "dims": 3,
                "out_channels": r["out_channels"], "kernel": kernel, "stride": r["stride"],
                "padding": r["padding"], "dilation": [1, 1, 1], "groups": r["groups"], "bias": true}]
        }))
        .unwrap();
        let precision = match r["precision"].as_str().unwrap() {
            "fp32" => Precision::Fp32,
            "tf32" => Precision::Tf32,
            _ => Precision::Bf16,
        };
        let analysis = analyze(&spec, input[0].as_u64().unwrap(), precision).unwrap();
        let mut layer = analysis.layers[0].clone();
        // The one layer's input is the model's, which needs no gradient; the timed step
        // computed one where the zoo's layer does.
        if r["input_grad"].as_bool().unwrap() {
            layer.bwd_flops = 2.0 * layer.fwd_flops;
            layer.kernels_bwd += 1;
            if let Some(c) = layer.conv.as_mut() {
                c.input_grad = true;
            }
        }
        let d = device_layer(&layer, Maths::of(precision, gpu).benchmarked(true), gpu, a);
        let ratio = (d.forward.time_s + d.backward.time_s) / r["step_s"].as_f64().unwrap();
        let case = r["case"].as_str().unwrap();
        if case.starts_with("sweep") {
            &mut sweep
        } else {
            &mut zoo
        }
        .push(ratio.ln());
    }
    (median(sweep).exp(), median(zoo).exp())
}
