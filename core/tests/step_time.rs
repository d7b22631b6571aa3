//! The step model's behaviour: what bounds a step, and how the host, the input pipeline
//! and the device move it (bounds and monotonicity, no copied numbers).

use hsi_gpu_core::analysis::{analyze, Analysis};
use hsi_gpu_core::assumptions::{PerfAssumptions, Pipeline};
use hsi_gpu_core::build_model;
use hsi_gpu_core::device::Maths;
use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::graph::ModelSpec;
use hsi_gpu_core::host::{cpu_profile, CpuClass};
use hsi_gpu_core::scenario::{ModelChoice, Precision, Scenario};
use hsi_gpu_core::steptime::{step_time, StepBound, StepBreakdown, StepSetup};

fn model(id: &str, bands: u32, patch: u32, batch: u32) -> (ModelSpec, Analysis) {
    let s = Scenario {
        model: ModelChoice::Preset {
            id: id.into(),
            width: None,
            size: None,
        },
        bands,
        patch,
        classes: 16,
        ..Scenario::default()
    };
    let spec = build_model(&s).unwrap();
    let analysis = analyze(&spec, batch.into(), Precision::Fp32).unwrap();
    (spec, analysis)
}

fn setup<'a>(spec: &ModelSpec, a: &'a Analysis, batch: u32) -> StepSetup<'a> {
    let gpu = gpu_by_id("rtx_3090").unwrap();
    StepSetup {
        layers: &a.layers,
        collectives: &[],
        params: a.params,
        maths: Maths::torch_default(gpu),
        optimizer_states: 2,
        decoupled_decay: false,
        foreach_ops: 8.0,
        optimizer_bytes_per_param: 28.0,
        grad_scaler: false,
        batch,
        accum_steps: 1,
        sample_bytes: spec.input.iter().product::<u64>() as f64 * 4.0,
        cpu: cpu_profile(CpuClass::Workstation),
        runs_per_host: 1,
        pipeline: Pipeline::default(),
        recompute: false,
    }
}

fn time(s: &StepSetup) -> StepBreakdown {
    step_time(
        s,
        gpu_by_id("rtx_3090").unwrap(),
        &PerfAssumptions::default(),
    )
}

#[test]
fn a_small_hsi_model_is_host_bound_and_a_big_batch_device_bound() {
    let (spec, a) = model("ssftt", 30, 13, 64);
    let small = time(&setup(&spec, &a, 64));
    assert_eq!(small.bound, StepBound::Host);
    assert!(small.host_s > small.device_s);

    let (spec, a) = model("hybridsn", 30, 25, 1024);
    let big = time(&setup(&spec, &a, 1024));
    assert_eq!(big.bound, StepBound::Device);
    // The step is at least each part and at most their sum plus the sync.
    for t in [&small, &big] {
        assert!(t.step_s >= t.host_s.max(t.device_s));
        assert!(t.step_s <= t.host_s + t.device_s + t.input_s + 1e-3);
    }
}

#[test]
fn a_slow_pipeline_bounds_the_step() {
    let (spec, a) = model("ssftt", 200, 25, 64);
    let mut s = setup(&spec, &a, 64);
    s.cpu = cpu_profile(CpuClass::Laptop);
    s.pipeline = Pipeline {
        precut: false,
        augmentation: true,
        ..Pipeline::default()
    };
    let slow = time(&s);
    assert_eq!(slow.bound, StepBound::Input);
    // Workers take the loading off the main process; a cube on the GPU removes it.
    s.pipeline.num_workers = 4;
    let workers = time(&s);
    assert!(workers.step_s < slow.step_s);
    s.pipeline.cube_on_gpu = true;
    let resident = time(&s);
    assert!(resident.input_s < workers.input_s);
    assert!(resident.step_s <= workers.step_s);
}

#[test]
fn parallel_runs_on_one_host_do_not_scale_exactly() {
    let (spec, a) = model("ssftt", 30, 13, 64);
    let mut s = setup(&spec, &a, 64);
    s.pipeline.num_workers = 2;
    let one = time(&s).step_s;
    s.runs_per_host = 4;
    let four = time(&s).step_s;
    assert!(four > one, "{four} vs {one}");
    // Eight runs leave each one core: no workers, slower still.
    s.runs_per_host = 16;
    assert!(time(&s).step_s > four);
}

#[test]
fn a_slower_cpu_or_the_optimizer_loop_lengthens_a_host_bound_step() {
    let (spec, a) = model("ssftt", 30, 13, 64);
    let mut s = setup(&spec, &a, 64);
    let base = time(&s).step_s;
    s.cpu = cpu_profile(CpuClass::Laptop);
    assert!(time(&s).step_s > base);
    s.cpu = cpu_profile(CpuClass::Workstation);
    let mut loop_optimizer = PerfAssumptions::default();
    loop_optimizer.host.foreach = false;
    let gpu = gpu_by_id("rtx_3090").unwrap();
    assert!(step_time(&s, gpu, &loop_optimizer).step_s > base);
    // Without a per-step sync the host and device overlap: never slower.
    s.pipeline.sync_every_step = false;
    assert!(time(&s).step_s <= base);
}

#[test]
fn device_time_grows_with_the_batch_and_falls_with_half_precision() {
    let (spec, a) = model("hybridsn", 30, 25, 256);
    let (_, a2) = model("hybridsn", 30, 25, 512);
    let t256 = time(&setup(&spec, &a, 256)).device_s;
    let t512 = time(&setup(&spec, &a2, 512)).device_s;
    assert!(t512 > t256);
    let (_, amp) = {
        let s = Scenario {
            model: ModelChoice::Preset {
                id: "hybridsn".into(),
                width: None,
                size: None,
            },
            bands: 30,
            patch: 25,
            classes: 16,
            ..Scenario::default()
        };
        let spec = build_model(&s).unwrap();
        let an = analyze(&spec, 512, Precision::AmpFp16).unwrap();
        (spec, an)
    };
    let mut s = setup(&spec, &amp, 512);
    s.maths = Maths::half(true, true);
    s.grad_scaler = true;
    assert!(time(&s).device_s < t512);
}

/// A custom model's samples are its own input, whatever the scenario's bands and patch
/// (which size the presets): the pipeline loads and copies what the model reads.
#[test]
fn a_custom_models_pipeline_loads_its_own_input() {
    let preset = Scenario::default();
    let spec = build_model(&preset).unwrap();
    let custom = Scenario {
        model: ModelChoice::Custom { spec: spec.clone() },
        bands: 200,
        patch: 5,
        ..Scenario::default()
    };
    let [a, b] = [&preset, &custom].map(|s| hsi_gpu_core::estimate(s).unwrap().perf.time);
    assert_eq!(spec.input, [1, 30, 25, 25]);
    assert_eq!(a.input_s, b.input_s);
    assert_eq!(a.input_samples_per_s, b.input_samples_per_s);
}

#[test]
fn a_kernel_too_small_to_fill_the_card_is_limited_as_a_launch_is() {
    use hsi_gpu_core::perf::Limiter;
    // HybridSN at batch 64: its ReLUs and dropouts move a few kilobytes each, so their
    // time is the least a kernel takes, which no faster unit shortens; its 3-D
    // convolutions do real work on the heuristics' CUDA-core algorithms.
    let report = hsi_gpu_core::estimate(&Scenario::default()).unwrap();
    let limiter = |kind: &str| -> Vec<Limiter> {
        report
            .perf
            .layers
            .iter()
            .filter(|l| l.kind == kind)
            .map(|l| l.forward.limiter)
            .collect()
    };
    let small = [limiter("relu"), limiter("dropout")].concat();
    assert!(!small.is_empty());
    assert!(small.iter().all(|l| *l != Limiter::Compute), "{small:?}");
    assert!(limiter("conv3d").contains(&Limiter::Compute));
}

#[test]
fn independent_runs_read_their_own_curve_and_span_no_ring() {
    use hsi_gpu_core::perf::ring_cards;
    use hsi_gpu_core::scenario::ParallelMode;
    let mut s = Scenario {
        cards: 4,
        ..Scenario::default()
    };
    let ddp = hsi_gpu_core::estimate(&s).unwrap().perf.scaling;
    assert_eq!(ring_cards(&s), 4);
    assert_eq!(ddp.mode_curve(ParallelMode::Ddp), &ddp.ddp[0].points[..]);
    s.workload.mode = ParallelMode::ParallelExperiments;
    let report = hsi_gpu_core::estimate(&s).unwrap();
    assert_eq!(ring_cards(&s), 1);
    let point = report
        .perf
        .scaling
        .mode_curve(s.workload.mode)
        .iter()
        .find(|p| p.cards == 4)
        .unwrap();
    // No all-reduce between independent runs; their throughput is the report's.
    assert_eq!(point.allreduce_share, 0.0);
    let ratio = point.samples_per_s / report.perf.time.samples_per_s;
    assert!((ratio - 1.0).abs() < 1e-9, "{ratio}");
}

#[test]
fn an_epochs_last_partial_batch_costs_its_share_but_no_less_than_the_hosts_issue() {
    // Indian Pines' 1,025 training samples at batch 1,024: one full step and one of a
    // single sample, which the DataLoader keeps (drop_last=False).
    let s = Scenario {
        gpu: "rtx_4090".into(),
        batch_per_gpu: 1024,
        ..Scenario::default()
    };
    let report = hsi_gpu_core::estimate(&s).unwrap();
    let (time, epoch) = (&report.perf.time, &report.perf.epoch);
    assert_eq!(epoch.samples_per_epoch, 1025);
    assert_eq!(epoch.micro_steps_per_epoch, 2);
    assert!(time.host_s < 0.5 * time.step_s, "{time:?}");
    let expected = time.step_s + (time.step_s / 1024.0).max(time.host_s);
    assert!(
        (epoch.epoch_s - expected).abs() < 1e-12 * expected,
        "{epoch:?}"
    );
    // A batch that divides the epoch runs whole steps only.
    let whole = Scenario {
        batch_per_gpu: 41, // 1,025 = 25 x 41
        ..Scenario::default()
    };
    let report = hsi_gpu_core::estimate(&whole).unwrap();
    let (time, epoch) = (&report.perf.time, &report.perf.epoch);
    assert_eq!(epoch.micro_steps_per_epoch, 25);
    assert!((epoch.epoch_s - 25.0 * time.step_s).abs() < 1e-9 * epoch.epoch_s);
}
