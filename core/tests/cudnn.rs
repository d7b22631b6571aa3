//! cuDNN's algorithm choice and workspaces per convolution pass (`hsi_gpu_core::cudnn`),
//! on the zoo's convolutions as the analysis sees them.

use hsi_gpu_core::analysis::{analyze, ConvShape};
use hsi_gpu_core::assumptions::CudnnAssumptions;
use hsi_gpu_core::build_model;
use hsi_gpu_core::cudnn::{conv_algos, spans_three_dims, workspaces, MathMode, Maths, Pass};
use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::scenario::{ModelChoice, Precision, Scenario};

fn convs(id: &str, bands: u32, patch: u32) -> Vec<ConvShape> {
    let s = Scenario {
        model: ModelChoice::Preset {
            id: id.into(),
            width: None,
            size: None,
        },
        bands,
        patch,
        ..Scenario::default()
    };
    let spec = build_model(&s).unwrap();
    analyze(&spec, 1, Precision::Fp32)
        .unwrap()
        .layers
        .into_iter()
        .filter_map(|l| l.conv)
        .collect()
}

fn tf32() -> Maths {
    Maths::tf32(gpu_by_id("h200_sxm").unwrap())
}

#[test]
fn only_kernels_spanning_three_dimensions_count_as_3d() {
    // HybridSN: three 3-D convolutions, then a 2-D one.
    let spans: Vec<bool> = convs("hybridsn", 30, 25)
        .iter()
        .map(spans_three_dims)
        .collect();
    assert_eq!(spans, [true, true, true, false]);
    // DBDA: spectral (1, 1, k) and spatial (3, 3, 1) kernels only.
    assert!(!convs("dbda", 200, 9).iter().any(spans_three_dims));
    // SSRN: one, the 3 x 3 x 128 kernel over the spectral feature maps.
    let ssrn: Vec<ConvShape> = convs("ssrn", 200, 7)
        .into_iter()
        .filter(spans_three_dims)
        .collect();
    assert_eq!(ssrn.len(), 1);
    assert_eq!(ssrn[0].kernel, [3, 3, 128]);
}

#[test]
fn timed_algorithms_do_the_counted_work_and_untimed_3d_ones_do_not() {
    let a = CudnnAssumptions::default();
    let ssrn = convs("ssrn", 200, 7);
    let wide = ssrn.iter().find(|c| spans_three_dims(c)).unwrap();
    for p in conv_algos(wide, tf32().benchmarked(true), &a) {
        assert_eq!(
            (p.work_factor, p.slowdown, p.math),
            (1.0, 1.0, MathMode::Tf32)
        );
    }
    let untimed = conv_algos(wide, tf32(), &a);
    let data = untimed
        .iter()
        .find(|p| p.pass == Pass::BackwardData)
        .unwrap();
    // Every tap of the 7 x 7 x 128 input against 5 x 5 x 1 outputs, on CUDA cores, one
    // input channel wide.
    assert_eq!(data.work_factor, (7.0 * 7.0 * 128.0) / 25.0);
    assert_eq!((data.math, data.gemm_n), (MathMode::Fp32, 1.0));
    // A 2-D-like convolution runs as timed either way.
    let spectral = &ssrn[1];
    assert_eq!(
        conv_algos(spectral, tf32(), &a),
        conv_algos(spectral, tf32().benchmarked(true), &a)
    );
    // FP32's untimed pick is slower than the timed one.
    let fp32 = conv_algos(wide, Maths::fp32(), &a);
    assert!(fp32.iter().all(|p| p.slowdown == a.heuristic_fp32_slowdown));
}

#[test]
fn workspaces_grow_with_the_whole_batch() {
    let a = CudnnAssumptions::default();
    let hybridsn = convs("hybridsn", 30, 25);
    let third = conv_algos(&hybridsn[2], tf32(), &a);
    let forward = third[0];
    assert_eq!(forward.pass, Pass::Forward);
    assert!(forward.workspace_per_sample > 0.0);
    // PyTorch's v8 path runs the whole batch as one call, even past 2^31 - 1 elements
    // (207,936 a sample here, from 10,328 samples on), so the workspace keeps growing.
    assert_eq!(
        forward.workspace_bytes(16_384),
        2.0 * forward.workspace_bytes(8_192)
    );
}

/// A 2-D (or 1-D) convolution in FP32 or TF32 lowers its input when the heuristics pick,
/// not when timed, not on 16-bit tensor cores, and not for a 1 x 1 kernel.
#[test]
fn flat_convolutions_lower_their_input_untimed_in_full_precision() {
    let a = CudnnAssumptions::default();
    let hybridsn = convs("hybridsn", 30, 25);
    let flat = &hybridsn[3];
    assert_eq!(flat.input.len(), 2);
    let kvol: u64 = flat.kernel.iter().product();
    let out_pos: u64 = flat.output.iter().product();
    // FP32 (4 bytes) from `convs`.
    let lowered = (flat.in_channels * kvol * out_pos * 4) as f64;
    let per_sample = |maths: Maths| -> Vec<f64> {
        conv_algos(flat, maths, &a)
            .iter()
            .map(|p| p.workspace_per_sample)
            .collect()
    };
    for maths in [tf32(), Maths::fp32()] {
        assert!(per_sample(maths)
            .iter()
            .all(|&w| w == a.workspace_cuda_core * lowered));
        assert!(per_sample(maths.benchmarked(true))
            .iter()
            .all(|&w| w == 0.0));
    }
    assert!(per_sample(Maths::half(true, true))
        .iter()
        .all(|&w| w == 0.0));
    // SSFTT's one 2-D convolution and Hu's 1-D one lower theirs; a 1 x 1 kernel has none.
    let ssftt = convs("ssftt", 30, 13);
    assert!(ssftt
        .iter()
        .any(|c| c.input.len() == 2 && conv_algos(c, tf32(), &a)[0].workspace_per_sample > 0.0));
    let hu = convs("hu1d", 200, 1);
    assert!(hu
        .iter()
        .all(|c| c.input.len() == 1
            && conv_algos(c, Maths::fp32(), &a)[0].workspace_per_sample > 0.0));
    let unet = convs("unet", 30, 64);
    let pointwise: Vec<&ConvShape> = unet
        .iter()
        .filter(|c| c.kernel.iter().all(|&k| k == 1))
        .collect();
    assert!(!pointwise.is_empty());
    assert!(pointwise.iter().all(|c| conv_algos(c, tf32(), &a)
        .iter()
        .all(|p| p.workspace_per_sample == 0.0)));
}

#[test]
fn a_model_lists_each_convolution_pass_that_runs() {
    let a = CudnnAssumptions::default();
    let s = Scenario::default();
    let spec = build_model(&s).unwrap();
    let layers = analyze(&spec, 64, Precision::Fp32).unwrap().layers;
    let passes = workspaces(&layers, tf32(), &a);
    // HybridSN: the first convolution's input is the data (no backward data).
    assert_eq!(passes.len(), 4 * 3 - 1);
    assert_eq!(passes[1].1.pass, Pass::BackwardFilter);
    assert!(passes.iter().all(|(i, _)| layers[*i].conv.is_some()));
}
