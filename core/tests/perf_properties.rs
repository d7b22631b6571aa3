//! Properties of the performance, scaling and cost model that hold for any layers and any
//! scenario (proptest, on random hand-built layer figures from `common/hand_built.rs`):
//! the report is finite, the roofline consistent, faster hardware and links never slow a
//! step, time is linear in epochs, parallel runs share the host, overlap only hides the
//! all-reduce.

use common::hand_built::{close, layer, run};
use hsi_gpu_core::dataset::DATASETS;
use hsi_gpu_core::gpu::{gpu_by_id, NvLink, GPUS};
use hsi_gpu_core::report::LayerReport;
use hsi_gpu_core::scenario::{Interconnect, Optimizer, ParallelMode, Precision, Scenario};
use proptest::prelude::*;

mod common;

fn arb_layers() -> impl Strategy<Value = Vec<LayerReport>> {
    prop::collection::vec(
        (0.0..1e12f64, 0.0..1e9f64, 0u64..10_000_000, any::<bool>()),
        0..24,
    )
    .prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (f, b, p, t))| layer(i, f, b, p, t))
            .collect()
    })
}

fn arb_scenario() -> impl Strategy<Value = Scenario> {
    (
        (0..GPUS.len(), 0..DATASETS.len(), 0..5usize, 0..4usize),
        (any::<bool>(), 1u32..=8, 0..3usize, any::<bool>()),
        (1u32..4096, 1u32..16, 1u32..1000, 1u32..50),
    )
        .prop_map(
            |((g, d, p, o), (ckpt, cards, ic, ddp), (batch, accum, epochs, sweep))| {
                let mut s = Scenario {
                    gpu: GPUS[g].id.into(),
                    dataset: DATASETS[d].id.into(),
                    precision: Precision::ALL[p],
                    optimizer: Optimizer::ALL[o],
                    checkpointing: ckpt,
                    cards,
                    interconnect: Interconnect::ALL[ic],
                    batch_per_gpu: batch,
                    ..Scenario::default()
                };
                s.workload.mode = if ddp {
                    ParallelMode::Ddp
                } else {
                    ParallelMode::ParallelExperiments
                };
                s.workload.grad_accum_steps = accum;
                s.workload.epochs = epochs;
                s.workload.sweep_runs = sweep;
                s
            },
        )
}

/// Every f64 in the serialised report is finite and non-negative.
fn assert_finite_non_negative(v: &serde_json::Value, path: &str) {
    match v {
        serde_json::Value::Number(n) => {
            let x = n.as_f64().unwrap();
            assert!(x.is_finite() && x >= 0.0, "{path} = {x}");
        }
        serde_json::Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| assert_finite_non_negative(x, &format!("{path}[{i}]"))),
        serde_json::Value::Object(o) => o
            .iter()
            .for_each(|(k, x)| assert_finite_non_negative(x, &format!("{path}.{k}"))),
        serde_json::Value::Null => panic!("{path} is null (NaN or infinity?)"),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn report_is_finite_and_non_negative(layers in arb_layers(), s in arb_scenario()) {
        let gpu = gpu_by_id(&s.gpu).unwrap();
        let r = run(&layers, &s, gpu);
        assert_finite_non_negative(&serde_json::to_value(&r).unwrap(), "perf");
        prop_assert!(r.time.step_s > 0.0);
        prop_assert!(r.time.allreduce_share < 1.0);
    }

    #[test]
    fn roofline_is_consistent(layers in arb_layers(), s in arb_scenario()) {
        let gpu = gpu_by_id(&s.gpu).unwrap();
        let r = run(&layers, &s, gpu);
        prop_assert!(close(r.ridge, r.peak_flops / gpu.bandwidth_bytes_per_s));
        let bw = gpu.bandwidth_bytes_per_s;
        let passes = r.layers.iter().flat_map(|l| [&l.forward, &l.backward]);
        for p in passes {
            let roof = &p.roofline;
            prop_assert!(close(roof.ridge, roof.roof_flops / bw));
            prop_assert!(roof.attainable_flops <= roof.roof_flops);
            prop_assert!(roof.attainable_flops <= roof.intensity * bw * (1.0 + 1e-12));
            prop_assert!(p.efficiency > 0.0 && p.efficiency <= 1.0);
            prop_assert!(p.achieved_flops <= roof.roof_flops);
            prop_assert!(p.time_s >= p.compute_s.max(p.memory_s).max(p.launch_s));
        }
        let step = &r.step_roofline;
        prop_assert!(step.attainable_flops <= step.roof_flops);
        prop_assert!(r.step_achieved_flops <= r.peak_flops.max(r.fp32_flops));
    }

    #[test]
    fn faster_hardware_never_slows_a_step(
        layers in arb_layers(),
        s in arb_scenario(),
        bw_gain in 1.0..4.0f64,
        flops_gain in 1.0..4.0f64,
    ) {
        let gpu = gpu_by_id(&s.gpu).unwrap();
        let base = run(&layers, &s, gpu).time.step_s;
        let mut faster_memory = *gpu;
        faster_memory.bandwidth_bytes_per_s *= bw_gain;
        let mut faster_compute = *gpu;
        faster_compute.fp32_flops *= flops_gain;
        faster_compute.fp16_tensor_flops *= flops_gain;
        faster_compute.tf32_flops = gpu.tf32_flops.map(|f| f * flops_gain);
        for g in [&faster_memory, &faster_compute] {
            let t = run(&layers, &s, g).time.step_s;
            prop_assert!(t <= base * (1.0 + 1e-12), "{} > {}", t, base);
        }
    }

    #[test]
    fn nvlink_never_slower_than_pcie(layers in arb_layers(), s in arb_scenario()) {
        for gpu in GPUS.iter().filter(|g| matches!(g.nvlink, NvLink::Bridge { .. })) {
            let r = run(&layers, &s, gpu);
            let curve = |ic| &r.scaling.ddp.iter().find(|c| c.interconnect == ic).unwrap().points;
            for (pcie, nvlink) in curve(Interconnect::Pcie).iter().zip(curve(Interconnect::NvlinkBridge)) {
                prop_assert_eq!(pcie.cards, nvlink.cards);
                prop_assert!(nvlink.step_s <= pcie.step_s);
                prop_assert!(nvlink.bus_bytes_per_s >= pcie.bus_bytes_per_s);
            }
        }
    }

    #[test]
    fn time_is_linear_in_epochs(layers in arb_layers(), s in arb_scenario(), k in 2u32..50) {
        let gpu = gpu_by_id(&s.gpu).unwrap();
        let mut one = s.clone();
        one.workload.epochs = 1;
        let mut many = s;
        many.workload.epochs = k;
        let (t1, tk) = (run(&layers, &one, gpu).epoch.total_s, run(&layers, &many, gpu).epoch.total_s);
        prop_assert!(close(tk, f64::from(k) * t1));
    }

    /// Parallel runs share the host (issue 12 changed this on purpose: they used to
    /// scale exactly N x): never more than N x one run, never slower per run with fewer
    /// runs, and throughput still grows with the runs.
    #[test]
    fn parallel_experiments_share_the_host(layers in arb_layers(), s in arb_scenario()) {
        let gpu = gpu_by_id(&s.gpu).unwrap();
        let r = run(&layers, &s, gpu);
        let pe = &r.scaling.parallel_experiments;
        prop_assert_eq!(pe.len(), 8);
        for (p, q) in pe.iter().zip(pe.iter().skip(1)) {
            prop_assert!(p.samples_per_s <= f64::from(p.cards) * pe[0].samples_per_s * (1.0 + 1e-12));
            prop_assert!(close(p.speedup, p.samples_per_s / pe[0].samples_per_s));
            prop_assert!(p.efficiency <= 1.0 + 1e-12);
            prop_assert!(q.step_s >= p.step_s * (1.0 - 1e-12));
            prop_assert!(q.samples_per_s > p.samples_per_s);
        }
        for curve in &r.scaling.ddp {
            for p in &curve.points {
                prop_assert!(p.efficiency <= 1.0 + 1e-12);
                prop_assert!(p.allreduce_exposed_s <= p.allreduce_s * (1.0 + 1e-12));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// overlap = 0 exposes the whole all-reduce; more overlap never exposes more.
    #[test]
    fn overlap_only_hides_allreduce(layers in arb_layers(), s in arb_scenario(), o in 0.0..1.0f64) {
        let gpu = gpu_by_id(&s.gpu).unwrap();
        let exposed = |overlap: f64| {
            let mut t = s.clone();
            t.workload.mode = ParallelMode::Ddp;
            t.perf.scaling.overlap = overlap;
            run(&layers, &t, gpu).time
        };
        let (none, some, full) = (exposed(0.0), exposed(o), exposed(1.0));
        prop_assert!(close(none.allreduce_exposed_s, none.allreduce_s));
        prop_assert!(some.allreduce_exposed_s <= none.allreduce_exposed_s * (1.0 + 1e-12));
        prop_assert!(full.allreduce_exposed_s <= some.allreduce_exposed_s * (1.0 + 1e-12));
    }
}
