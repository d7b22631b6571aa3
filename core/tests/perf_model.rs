//! The catalogs and the performance, scaling and cost model worked on hand-built layer
//! figures (`common/hand_built.rs`; independent of the model analysis): the catalogs'
//! ids and peaks, the all-reduce and the links it crosses, gradient accumulation,
//! epochs, checkpointing, launch-bound layers, the sweep, the cost, the assumptions'
//! JSON and the remark on a batch over the epoch.

use common::hand_built::{close, layer, params, run};
use hsi_gpu_core::dataset::{dataset_by_id, DATASETS};
use hsi_gpu_core::gpu::{gpu_by_id, GPUS};
use hsi_gpu_core::json::Check;
use hsi_gpu_core::report::Warning;
use hsi_gpu_core::scaling::{pcie_x16_bytes_per_s, ring_allreduce_s};
use hsi_gpu_core::scenario::{Interconnect, ParallelMode, Precision, Scenario};

mod common;

#[test]
fn catalog_ids_are_unique_and_memory_is_gib_based() {
    let mut ids: Vec<_> = GPUS.iter().map(|g| g.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), GPUS.len());
    assert_eq!(gpu_by_id("rtx_a5500").unwrap().memory_bytes, 24 * (1 << 30));
    assert_eq!(gpu_by_id("h100_sxm").unwrap().memory_bytes, 80 * (1 << 30));
    let mut datasets: Vec<_> = DATASETS.iter().map(|d| d.id).collect();
    datasets.sort();
    datasets.dedup();
    assert_eq!(datasets.len(), DATASETS.len());
    assert_eq!(
        dataset_by_id("indian_pines").unwrap().labeled_pixels,
        10_249
    );
}

#[test]
fn precision_peaks_fall_back_with_a_warning() {
    let v100s = gpu_by_id("v100s_pcie").unwrap();
    assert!(!v100s.bf16 && v100s.tf32_flops.is_none());
    let bf16 = v100s.peak_flops(Precision::AmpBf16);
    assert_eq!(bf16.flops, v100s.fp32_flops);
    assert_eq!(
        bf16.warning,
        Some(Warning::NoBf16 {
            gpu: v100s.name.into()
        })
    );
    assert!(bf16.warning.unwrap().to_string().contains("BF16"));
    assert_eq!(v100s.peak_flops(Precision::Tf32).flops, v100s.fp32_flops);
    assert_eq!(v100s.peak_flops(Precision::AmpFp16).flops, 130e12);
    let a5500 = gpu_by_id("rtx_a5500").unwrap();
    let tf32 = a5500.peak_flops(Precision::Tf32);
    assert_eq!((tf32.flops, tf32.warning), (68.2e12, None));
    assert_eq!(a5500.peak_flops(Precision::Bf16).flops, 136.4e12);
}

/// GeForce cards have no peer-to-peer over PCIe (NVIDIA/nccl issue 1127 for the 3090);
/// the professional cards of the same chips do.
#[test]
fn geforce_cards_have_no_pcie_p2p() {
    for id in [
        "rtx_3090",
        "rtx_3090_ti",
        "rtx_4080",
        "rtx_4090",
        "rtx_5090",
    ] {
        assert!(!gpu_by_id(id).unwrap().pcie_p2p, "{id}");
    }
    for id in ["rtx_a5500", "rtx_a6000", "rtx_6000_ada"] {
        assert!(gpu_by_id(id).unwrap().pcie_p2p, "{id}");
    }
}

#[test]
fn ring_allreduce_matches_the_nccl_formula() {
    // 100 MB on 4 cards over 10 GB/s, no latency: 2 x 3/4 x 1e8 / 1e10 = 15 ms.
    assert!(close(ring_allreduce_s(1e8, 4, 1e10, 0.0), 0.015));
    // Latency: 2(N-1) ring steps.
    assert!(close(ring_allreduce_s(1e8, 4, 1e10, 1e-5), 0.015 + 6e-5));
    assert_eq!(ring_allreduce_s(1e8, 1, 1e10, 1e-5), 0.0);
    // PCIe 4.0 x16: 16 GT/s x 16 lanes x 128/130 / 8 = 31.5 GB/s one way.
    assert!(close(
        pcie_x16_bytes_per_s(4),
        16e9 * 16.0 * 128.0 / 130.0 / 8.0
    ));
}

/// A four-card A5500 box with bridged pairs: the ring crosses PCIe between the pairs, so
/// it runs at PCIe speed; two bridged cards run at NVLink speed.
#[test]
fn bridged_pairs_are_limited_by_pcie_beyond_two_cards() {
    let gpu = gpu_by_id("rtx_a5500").unwrap();
    let layers: Vec<_> = (0..4)
        .map(|i| layer(i, 1e9, 1e6, 5_000_000, true))
        .collect();
    let s = Scenario {
        interconnect: Interconnect::NvlinkBridge,
        ..Scenario::default()
    };
    let r = run(&layers, &s, gpu);
    let curve = |ic| {
        r.scaling
            .ddp
            .iter()
            .find(|c| c.interconnect == ic)
            .unwrap()
            .points
            .clone()
    };
    let (pcie, bridge) = (curve(Interconnect::Pcie), curve(Interconnect::NvlinkBridge));
    let a = &s.perf.scaling;
    let nvlink_one_way = 112.5e9 / 2.0 * a.nvlink_efficiency;
    let pcie_bw = pcie_x16_bytes_per_s(4) * a.pcie_efficiency;
    assert!(close(bridge[1].bus_bytes_per_s, nvlink_one_way));
    assert!(close(bridge[3].bus_bytes_per_s, pcie_bw));
    assert!(close(pcie[3].bus_bytes_per_s, pcie_bw));
    assert!(bridge[1].allreduce_s < pcie[1].allreduce_s);
}

/// Gradient accumulation all-reduces once per cycle: with A micro-steps the exposed
/// all-reduce is paid once for A x batch samples.
#[test]
fn grad_accumulation_amortises_the_allreduce() {
    let gpu = gpu_by_id("rtx_4090").unwrap();
    let layers: Vec<_> = (0..3)
        .map(|i| layer(i, 1e8, 1e5, 3_000_000, true))
        .collect();
    let mut s = Scenario {
        gpu: gpu.id.into(),
        cards: 4,
        ..Scenario::default()
    };
    let once = run(&layers, &s, gpu);
    s.workload.grad_accum_steps = 4;
    let four = run(&layers, &s, gpu);
    assert!(once.time.allreduce_exposed_s > 0.0);
    assert!(close(once.time.allreduce_s, four.time.allreduce_s));
    // The host, input and sync share and DDP's own overhead come once per update too
    // (issue 12 added them on purpose).
    assert!(close(
        four.time.step_s,
        4.0 * four.time.micro_step_s
            + four.time.optimizer_s
            + four.time.allreduce_exposed_s
            + four.time.host_extra_s
            + four.time.ddp_overhead_s
    ));
    assert!(four.time.allreduce_share < once.time.allreduce_share);
}

/// An epoch runs its micro-steps and one update per `grad_accum_steps` of them: an update
/// accumulating over more micro-steps than the epoch has costs what the epoch runs, not a
/// whole update's host and input share (the default epoch is 17 micro-steps of 64).
#[test]
fn an_epoch_pays_for_the_micro_steps_it_runs() {
    let gpu = gpu_by_id("rtx_a5500").unwrap();
    let layers: Vec<_> = (0..3).map(|i| layer(i, 1e9, 1e6, 300_000, true)).collect();
    let epoch = |accum: u32| {
        let mut s = Scenario::default();
        s.workload.grad_accum_steps = accum;
        run(&layers, &s, gpu).epoch
    };
    let one = epoch(1);
    let micro_steps = one.micro_steps_per_epoch;
    assert_eq!(micro_steps, 17);
    let whole = epoch(micro_steps as u32);
    assert_eq!(whole.optimizer_steps_per_epoch, 1);
    for accum in [100, 1000] {
        let over = epoch(accum);
        assert_eq!(over.micro_steps_per_epoch, micro_steps);
        assert_eq!(over.optimizer_steps_per_epoch, 1);
        assert!(
            (over.epoch_s / whole.epoch_s - 1.0).abs() < 0.05,
            "accumulating over {accum}: {} s against {} s over the epoch's {micro_steps}",
            over.epoch_s,
            whole.epoch_s
        );
    }
    // Fewer updates than micro-steps: the epoch is shorter, never longer.
    assert!(whole.epoch_s < one.epoch_s);
}

#[test]
fn checkpointing_adds_one_forward() {
    let gpu = gpu_by_id("rtx_a5500").unwrap();
    let layers: Vec<_> = (0..5)
        .map(|i| layer(i, 1e10, 1e7, 10_000, i % 2 == 0))
        .collect();
    let mut s = Scenario::default();
    let plain = run(&layers, &s, gpu);
    s.checkpointing = true;
    let ckpt = run(&layers, &s, gpu);
    assert!(close(ckpt.time.recompute_s, plain.time.forward_s));
    assert!(close(
        ckpt.time.micro_step_s,
        plain.time.micro_step_s + plain.time.forward_s
    ));
}

/// Tiny layers at batch 1 are limited by kernel launches, not by the hardware.
#[test]
fn tiny_layers_are_launch_bound() {
    let gpu = gpu_by_id("h100_sxm").unwrap();
    let layers: Vec<_> = (0..10).map(|i| layer(i, 1e4, 1e3, 100, true)).collect();
    let r = run(&layers, &Scenario::default(), gpu);
    assert!(r
        .layers
        .iter()
        .all(|l| l.forward.limiter == hsi_gpu_core::perf::Limiter::Launch));
    assert!(close(
        r.time.forward_s,
        10.0 * Scenario::default().perf.kernel_launch_s
    ));
}

#[test]
fn epoch_and_sweep_follow_the_dataset_and_mode() {
    let gpu = gpu_by_id("rtx_a5500").unwrap();
    let layers: Vec<_> = (0..3).map(|i| layer(i, 1e9, 1e6, 100_000, true)).collect();
    let mut s = Scenario {
        cards: 4,
        ..Scenario::default()
    };
    s.workload.train_fraction = 0.5;
    s.workload.sweep_runs = 6;
    s.workload.mode = ParallelMode::ParallelExperiments;
    let r = run(&layers, &s, gpu);
    // Indian Pines: ceil(10,249 x 0.5) = 5,125 samples; one card per run, batch 64.
    assert_eq!(r.epoch.samples_per_epoch, 5125);
    assert_eq!(r.epoch.micro_steps_per_epoch, 5125u64.div_ceil(64));
    // Six runs four at a time: two rounds.
    assert!(close(r.cost.sweep_wall_s, 2.0 * r.epoch.run_s));
    assert!(close(
        r.time.samples_per_s,
        4.0 * r.time.samples_per_s_per_run
    ));
    s.workload.mode = ParallelMode::Ddp;
    let ddp = run(&layers, &s, gpu);
    assert_eq!(
        ddp.epoch.micro_steps_per_epoch,
        5125u64.div_ceil(4).div_ceil(64)
    );
    assert!(close(ddp.cost.sweep_wall_s, 6.0 * ddp.epoch.run_s));
}

#[test]
fn cost_adds_up() {
    let gpu = gpu_by_id("rtx_4090").unwrap();
    let layers = [layer(0, 1e9, 1e6, 100_000, true)];
    let mut s = Scenario {
        gpu: gpu.id.into(),
        cards: 4,
        ..Scenario::default()
    };
    s.cost.card_price_usd = Some(2000.0);
    let c = run(&layers, &s, gpu).cost;
    let a = &s.cost;
    assert_eq!(c.cards_usd, 8000.0);
    let draw = 4.0 * 450.0 + a.system_base_watts;
    assert!(close(c.psu_watts, draw * a.psu_margin));
    let platform = a.platform_base_usd + 4.0 * a.platform_per_card_usd + a.multi_gpu_platform_usd;
    assert!(close(c.platform_usd, platform));
    assert!(close(
        c.capex_usd,
        8000.0 + platform + c.psu_usd + c.cooling_usd
    ));
    let hours = 24.0 * 365.0 * a.lifetime_years * a.utilization;
    assert!(close(c.energy_kwh, draw * hours * a.pue / 1000.0));
    assert!(close(c.tco_usd, c.capex_usd + c.energy_usd + c.ops_usd));
    assert!(close(c.usd_per_gpu_hour, c.tco_usd / (4.0 * hours)));
    // The dated street price is used when the scenario sets none...
    s.cost.card_price_usd = None;
    let street = run(&layers, &s, gpu).cost;
    let market = hsi_gpu_core::market::market_by_id(gpu.id).unwrap();
    assert_eq!(street.card_price_usd, market.street.unwrap().amount);
    assert!(street.card_price_known);
    // ... and the launch price for a card without one.
    let rtx4080 = gpu_by_id("rtx_4080").unwrap();
    assert!(hsi_gpu_core::market::market_by_id(rtx4080.id)
        .unwrap()
        .street
        .is_none());
    s.gpu = rtx4080.id.into();
    let launch = run(&layers, &s, rtx4080).cost;
    assert_eq!(Some(launch.card_price_usd), rtx4080.launch_price_usd);
}

#[test]
fn assumptions_accept_partial_json_and_name_bad_fields() {
    use hsi_gpu_core::cost::CostAssumptions;
    use hsi_gpu_core::perf::PerfAssumptions;
    use hsi_gpu_core::scenario::Problems;

    let s = hsi_gpu_core::scenario::scenario_from_json(
        r#"{"perf": {"memory_efficiency": 0.6, "scaling": {"overlap": 0.5}}, "cost": {"card_price_usd": 2500}}"#,
    )
    .unwrap();
    let (perf, cost) = (s.perf, s.cost);
    let defaults = PerfAssumptions::default();
    assert_eq!(perf.memory_efficiency, 0.6);
    assert_eq!(perf.scaling.overlap, 0.5);
    assert_eq!(perf.compute_efficiency, defaults.compute_efficiency);
    assert_eq!(perf.scaling.bucket_bytes, defaults.scaling.bucket_bytes);
    assert_eq!(cost.card_price_usd, Some(2500.0));
    assert_eq!(cost.pue, CostAssumptions::default().pue);

    let mut problems = Problems::default();
    PerfAssumptions {
        compute_efficiency: 0.0,
        kernel_launch_s: f64::NAN,
        ..PerfAssumptions::default()
    }
    .check("perf", &mut problems);
    CostAssumptions {
        card_price_usd: Some(-1.0),
        utilization: 1.5,
        ..CostAssumptions::default()
    }
    .check("cost", &mut problems);
    let fields: Vec<_> = problems.0.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "perf.compute_efficiency",
            "perf.kernel_launch_s",
            "cost.card_price_usd",
            "cost.utilization"
        ]
    );
    assert!(problems
        .0
        .iter()
        .all(|e| e.allowed.contains("a number from")));
}

/// A batch larger than a card's share of the training split gets a remark: the epoch is
/// one partial batch (Indian Pines trains on 1,025 samples).
#[test]
fn a_batch_over_the_epoch_is_remarked() {
    let gpu = gpu_by_id("rtx_a5500").unwrap();
    let layers: Vec<_> = (0..3).map(|i| layer(i, 1e9, 1e6, 300_000, true)).collect();
    let remark = |batch: u32| {
        let s = Scenario {
            batch_per_gpu: batch,
            ..Scenario::default()
        };
        hsi_gpu_core::performance(&layers, params(&layers), &s, gpu).1
    };
    assert!(!remark(1025)
        .iter()
        .any(|w| matches!(w, Warning::BatchOverEpoch { .. })));
    assert!(remark(8192).contains(&Warning::BatchOverEpoch {
        batch: 8192,
        samples: 1025,
    }));
}
