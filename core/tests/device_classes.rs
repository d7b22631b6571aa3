//! The device model's op classes on single layers: depthwise and grouped convolutions
//! (ConvNeXt, ResNeXt, RegNet) and the unit a fused attention kernel runs on, by
//! precision and card. Rates are what the model gives a pass (roof x efficiency), so
//! each test states a relation the published fit relies on, not a number.

use hsi_gpu_core::analysis::{analyze, analyze_with, AttentionKernel, LayerReport, Training};
use hsi_gpu_core::assumptions::PerfAssumptions;
use hsi_gpu_core::device::{device_layer, fused_attention_roof, DeviceLayer, Maths};
use hsi_gpu_core::foundation::FineTune;
use hsi_gpu_core::gpu::{gpu_by_id, GpuSpec};
use hsi_gpu_core::graph::ModelSpec;
use hsi_gpu_core::scenario::Precision;
use serde_json::json;

/// A C -> C 2-D convolution with `groups` groups and a k x k kernel over a side x side
/// map (padding keeps the size), analysed at `batch`.
fn conv(channels: u64, groups: u64, k: u64, side: u64, batch: u64, p: Precision) -> LayerReport {
    let spec: ModelSpec = serde_json::from_value(json!({
        "name": "conv", "input": [channels, side, side],
        "layers": [{"name": "conv", "from": ["input"], "op": "conv", "dims": 2,
            "out_channels": channels, "kernel": [k, k], "stride": [1, 1],
            "padding": [k / 2, k / 2], "dilation": [1, 1], "groups": groups, "bias": true}]
    }))
    .unwrap();
    analyze(&spec, batch, p).unwrap().layers.remove(0)
}

fn timed(l: &LayerReport, p: Precision, gpu: &GpuSpec) -> DeviceLayer {
    device_layer(l, Maths::of(p, gpu), gpu, &PerfAssumptions::default())
}

/// FLOP/s the model gives the layer's forward pass.
fn rate(l: &LayerReport, p: Precision, gpu: &GpuSpec) -> f64 {
    let f = timed(l, p, gpu).forward;
    f.roof_flops * f.efficiency
}

#[test]
fn a_7x7_depthwise_kernel_runs_at_several_times_the_rate_of_a_3x3_one() {
    // ConvNeXt-T's first stage against MobileNet's 3x3 at the same size: the cost per
    // output is shared by 49 multiply-adds instead of 9.
    let gpu = gpu_by_id("rtx_3090").unwrap();
    let p = Precision::AmpFp16;
    let (k7, k3) = (conv(96, 96, 7, 56, 256, p), conv(96, 96, 3, 56, 256, p));
    let (r7, r3) = (rate(&k7, p, gpu), rate(&k3, p, gpu));
    println!(
        "depthwise 7x7 {:.2} TFLOP/s, 3x3 {:.2} TFLOP/s",
        r7 / 1e12,
        r3 / 1e12
    );
    assert!(r7 > 2.5 * r3, "{r7} vs {r3}");
    // Both on CUDA cores, far under the FP32 peak, in 16 bit too.
    for l in [&k7, &k3] {
        let f = timed(l, p, gpu).forward;
        assert_eq!(f.roof_flops, gpu.fp32_flops);
        assert!(f.efficiency < 0.25);
    }
}

#[test]
fn grouped_convolutions_use_tensor_cores_in_16_bit_only() {
    // ResNeXt's 32 groups of 4 channels: AMP runs them on tensor cores, TF32 on CUDA
    // cores (DeepLearningExamples' ResNeXt-101 gains 2.65x from AMP on an A100).
    let gpu = gpu_by_id("a100_80_sxm").unwrap();
    let amp = conv(128, 32, 3, 56, 128, Precision::AmpFp16);
    let tf32 = conv(128, 32, 3, 56, 128, Precision::Tf32);
    let (fa, ft) = (
        timed(&amp, Precision::AmpFp16, gpu).forward,
        timed(&tf32, Precision::Tf32, gpu).forward,
    );
    assert_eq!(fa.roof_flops, gpu.fp16_tensor_flops);
    assert_eq!(ft.roof_flops, gpu.fp32_flops);
    assert!(fa.roof_flops * fa.efficiency > 2.0 * ft.roof_flops * ft.efficiency);
    // A depthwise convolution is no GEMM: CUDA cores in 16 bit too, even on a card whose
    // tensor cores are 50x its FP32 peak.
    let h200 = gpu_by_id("h200_sxm").unwrap();
    let dw = conv(96, 96, 7, 56, 256, Precision::AmpFp16);
    assert_eq!(
        timed(&dw, Precision::AmpFp16, h200).forward.roof_flops,
        h200.fp32_flops
    );
}

#[test]
fn wider_groups_run_nearer_the_dense_rate() {
    // RegNet's 16-64 channels per group against ResNeXt's 4: one GEMM per group, each
    // as wide as its group; none reaches the dense convolution's rate.
    let gpu = gpu_by_id("rtx_3090").unwrap();
    let p = Precision::AmpFp16;
    let rates: Vec<f64> = [4, 16, 64]
        .iter()
        .map(|width| rate(&conv(256, 256 / width, 3, 28, 256, p), p, gpu))
        .collect();
    let dense = rate(&conv(256, 1, 3, 28, 256, p), p, gpu);
    println!("4, 16, 64 channels per group: {rates:?}; dense {dense}");
    assert!(rates.windows(2).all(|w| w[0] < w[1]), "{rates:?}");
    assert!(rates[2] < dense);
}

/// ViT-B/8's attention at 224 px (785 tokens, 12 heads of 64), batch 64.
fn vit_b8_attention(kernel: AttentionKernel, p: Precision) -> LayerReport {
    let spec: ModelSpec = serde_json::from_value(json!({
        "name": "attention", "input": [785, 768],
        "layers": [{"name": "attn", "from": ["input"], "op": "attention", "heads": 12,
            "qkv_bias": true}]
    }))
    .unwrap();
    let training = Training {
        precision: p,
        attention: kernel,
        finetune: FineTune::Full,
    };
    analyze_with(&spec, 64, &training).unwrap().layers.remove(0)
}

#[test]
fn fused_attention_in_fp32_runs_three_tf32_products_per_product_on_ampere_and_later() {
    // PyTorch's memory-efficient kernel (the only fused one for fp32 inputs) on sm80+:
    // tensor cores, a third of the TF32 rate; before sm80: CUDA cores; 16 bit: tensor
    // cores like any GEMM.
    let (h200, v100) = (
        gpu_by_id("h200_sxm").unwrap(),
        gpu_by_id("v100_sxm2_16").unwrap(),
    );
    let tf32 = h200.tf32_flops.unwrap();
    for p in [Precision::Tf32, Precision::Fp32, Precision::TorchDefault] {
        assert_eq!(fused_attention_roof(Maths::of(p, h200), h200), tf32 / 3.0);
    }
    assert_eq!(
        fused_attention_roof(Maths::of(Precision::Fp32, v100), v100),
        v100.fp32_flops
    );
    assert_eq!(
        fused_attention_roof(Maths::of(Precision::AmpBf16, h200), h200),
        h200.fp16_tensor_flops
    );
    // On an A100 in TF32 the fused layer's core no longer runs at the TF32 GEMM rate
    // (its projections do).
    let a100 = gpu_by_id("a100_80_sxm").unwrap();
    let a100_tf32 = a100.tf32_flops.unwrap();
    let fused = vit_b8_attention(AttentionKernel::MemEfficient, Precision::Tf32);
    let d = timed(&fused, Precision::Tf32, a100);
    assert!(fused.fused_attention_flops[0] > 0.0);
    assert!(d.forward.roof_flops < a100_tf32 && d.forward.roof_flops > a100_tf32 / 3.0);
    let math = vit_b8_attention(AttentionKernel::Math, Precision::Tf32);
    assert_eq!(math.fused_attention_flops, [0.0; 2]);
    assert_eq!(timed(&math, Precision::Tf32, h200).forward.roof_flops, tf32);
    // In 16 bit, flash attention keeps the GEMM's tensor cores.
    let flash = vit_b8_attention(AttentionKernel::Flash, Precision::AmpBf16);
    let roof = timed(&flash, Precision::AmpBf16, a100).forward.roof_flops;
    assert!((roof / a100.fp16_tensor_flops - 1.0).abs() < 1e-9, "{roof}");
}

#[test]
fn fused_attention_on_hopper_runs_at_the_sm80_kernels_share_of_the_peak() {
    // PyTorch's flash and memory-efficient kernels are sm80 code: on Hopper their core
    // reaches `hopper_fused_attention_efficiency` of the peak, not a GEMM's share. The
    // projections keep the GEMM's rate, so the pass slows by the core's time alone.
    let h200 = gpu_by_id("h200_sxm").unwrap();
    let a = PerfAssumptions::default();
    let mut as_gemm = a.clone();
    as_gemm.device.hopper_fused_attention_efficiency = a.compute_efficiency;
    for (kernel, p) in [
        (AttentionKernel::Flash, Precision::AmpBf16),
        (AttentionKernel::MemEfficient, Precision::Tf32),
    ] {
        let l = vit_b8_attention(kernel, p);
        let maths = Maths::of(p, h200);
        let core_roof = fused_attention_roof(maths, h200);
        let (now, before) = (
            device_layer(&l, maths, h200, &a),
            device_layer(&l, maths, h200, &as_gemm),
        );
        for (pass, now, before, core) in [
            (
                "forward",
                now.forward,
                before.forward,
                l.fused_attention_flops[0],
            ),
            (
                "backward",
                now.backward,
                before.backward,
                l.fused_attention_flops[1],
            ),
        ] {
            let extra = core / core_roof
                * (1.0 / a.device.hopper_fused_attention_efficiency - 1.0 / a.compute_efficiency);
            let grown = now.compute_s - before.compute_s;
            assert!(
                (grown / extra - 1.0).abs() < 1e-6,
                "{kernel:?} {pass}: {grown} vs {extra}"
            );
        }
        // Off Hopper nothing changes.
        let a100 = gpu_by_id("a100_80_sxm").unwrap();
        let m = Maths::of(p, a100);
        assert_eq!(
            device_layer(&l, m, a100, &a),
            device_layer(&l, m, a100, &as_gemm)
        );
    }
}

/// The last of `ops` (layer-list entries) over a [64, 112, 112] map at batch 256: large
/// enough that no L2 holds it.
fn streaming(ops: serde_json::Value) -> LayerReport {
    let spec: ModelSpec = serde_json::from_value(json!({
        "name": "stream", "input": [64, 112, 112], "layers": ops
    }))
    .unwrap();
    let mut layers = analyze(&spec, 256, Precision::AmpFp16).unwrap().layers;
    layers.pop().unwrap()
}

/// Share of the card's bandwidth the forward pass moves its bytes at.
fn bandwidth_share(l: &LayerReport, gpu: &GpuSpec) -> f64 {
    let f = timed(l, Precision::AmpFp16, gpu).forward;
    f.bytes / f.memory_s / gpu.bandwidth_bytes_per_s
}

/// Every SM issues 4 warp instructions a clock whatever its FP32 lanes: an A100 (64
/// lanes per SM) issues about what an RTX 3090 (128) does, though its FP32 peak is half.
/// A streaming layer's instructions are hidden where a card issues much per byte of
/// bandwidth (RTX 4090) and not on an A100, so the A100 reaches a smaller share of its
/// bandwidth; a copy issues next to nothing and reaches `memory_efficiency` on both.
#[test]
fn streaming_kernels_reach_less_of_an_hbm_cards_bandwidth_and_copies_do_not() {
    let [a100, rtx3090, rtx4090] =
        ["a100_80_sxm", "rtx_3090", "rtx_4090"].map(|id| gpu_by_id(id).unwrap());
    let issue = a100.warp_issue_per_s() / rtx3090.warp_issue_per_s();
    assert!(
        (0.9..1.2).contains(&issue),
        "A100 / 3090 issue rate {issue:.2}"
    );
    let relu = streaming(json!([{"op": "act", "kind": "relu"}]));
    let (on_a100, on_4090) = (
        bandwidth_share(&relu, a100),
        bandwidth_share(&relu, rtx4090),
    );
    assert!(
        on_a100 < 0.85 * on_4090,
        "{on_a100:.3} against {on_4090:.3}"
    );
    let efficiency = PerfAssumptions::default().memory_efficiency;
    assert!(on_4090 > 0.9 * efficiency, "{on_4090:.3}");
    // A flatten after a permute writes the permuted tensor out.
    let copy = streaming(json!([{"op": "permute", "order": [1, 2, 0]}, {"op": "flatten"}]));
    assert!(copy.kernels_fwd > 0, "{copy:?}");
    for gpu in [a100, rtx4090] {
        let share = bandwidth_share(&copy, gpu);
        // (a little over: the share of the traffic the L2 holds moves faster)
        assert!(
            (share / efficiency - 1.0).abs() < 0.03,
            "{}: {share}",
            gpu.id
        );
    }
}
