//! ZeRO / FSDP memory per GPU against the ZeRO paper's formulas, and more than one box.

use hsi_gpu_core::choices::{Interconnect, NodeLink, Precision, Sharding};
use hsi_gpu_core::cluster::{bus_bandwidth, collective_s, Collective, Network};
use hsi_gpu_core::scenario::{scenario_from_value, Scenario};
use hsi_gpu_core::steptime::StepBound;
use hsi_gpu_core::whatifs::estimate_all;
use hsi_gpu_core::{estimate, Report};
use serde_json::json;

/// A 1 B-parameter stack: 60 linear 4096 x 4096 blocks over 64 tokens, then a head.
fn billion() -> Scenario {
    let mut layers: Vec<_> = (0..60)
        .map(|i| json!({"op": "linear", "out_features": 4096, "name": format!("blocks.{i}.fc")}))
        .collect();
    layers.push(json!({"op": "flatten"}));
    layers.push(json!({"op": "linear", "out_features": 16, "name": "head"}));
    scenario_from_value(&json!({
        "model": {"kind": "custom", "spec": {"name": "1b", "input": [64, 4096], "layers": layers}},
        "gpu": "h100_sxm", "interconnect": "nvswitch", "cards": 8, "batch_per_gpu": 4,
        "precision": "amp_bf16", "optimizer": "adamw", "pipeline": {"synthetic": true}
    }))
    .unwrap()
}

fn run(s: &Scenario) -> Report {
    estimate(s).unwrap_or_else(|e| panic!("{e:?}"))
}

fn with(sharding: Sharding) -> Report {
    run(&Scenario {
        sharding,
        ..billion()
    })
}

fn model_states(r: &Report) -> f64 {
    r.memory.weights + r.memory.gradients + r.memory.optimizer_states
}

#[test]
fn each_zero_stage_saves_what_the_paper_formula_says_on_a_billion_parameters() {
    let [none, z1, z2, z3] = [
        Sharding::None,
        Sharding::Zero1,
        Sharding::Zero2,
        Sharding::Zero3,
    ]
    .map(with);
    let psi = none.params as f64;
    assert!(psi > 1e9 && psi < 1.02e9, "{psi}");
    let (k, nd) = (12.0, 8.0);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b;
    // (2 + 2 + K)Ψ, 2Ψ + 2Ψ + KΨ/Nd, 2Ψ + (2 + K)Ψ/Nd, (2 + 2 + K)Ψ/Nd.
    assert!(close(model_states(&none), (2.0 + 2.0 + k) * psi));
    assert!(close(model_states(&z1), (4.0 + k / nd) * psi));
    assert!(close(model_states(&z2), (2.0 + (2.0 + k) / nd) * psi));
    assert!(close(model_states(&z3), (4.0 + k) / nd * psi));
    // The totals keep that order (buffers and activations included).
    assert!(z1.memory.total < none.memory.total);
    assert!(z2.memory.total < z1.memory.total);
    assert!(z3.memory.total < z2.memory.total);
    // ZeRO-2 saves 2Ψ(1 - 1/Nd) of gradients over ZeRO-1 in the peaks, to within what the
    // allocator's replay moves (its blocks, segments and the moment of the peak).
    let saved = 2.0 * psi * (1.0 - 1.0 / nd);
    let allocated = z1.memory.allocated_peak - z2.memory.allocated_peak;
    let total = z1.memory.total - z2.memory.total;
    assert!(
        (allocated - saved).abs() <= 0.05 * saved,
        "{allocated} vs {saved}"
    );
    assert!((total - saved).abs() <= 0.05 * saved, "{total} vs {saved}");
    // FSDP keeps ZeRO-3's states plus its unit working set.
    let fsdp = with(Sharding::Fsdp);
    assert!(close(model_states(&fsdp), model_states(&z3)));
    assert!(fsdp.memory.sharding_buffers >= 2.0 * 4.0 * 4096.0 * 4096.0);
}

#[test]
fn offload_moves_the_optimizer_to_the_host_and_costs_step_time() {
    let on = run(&Scenario {
        sharding: Sharding::Zero2,
        offload: true,
        ..billion()
    });
    let off = with(Sharding::Zero2);
    assert_eq!(on.memory.optimizer_states, 0.0);
    assert_eq!(on.memory.offloaded_to_host, off.memory.optimizer_states);
    assert!(on.perf.time.step_s > off.perf.time.step_s);
    assert!(on.perf.time.optimizer_change_s > 0.0);
}

#[test]
fn what_the_cards_add_bounds_the_step_when_it_is_its_largest_part() {
    let largest_part = |r: &Report| {
        let t = &r.perf.time;
        t.host_s.max(t.input_s).max(t.device_s)
    };
    // ZeRO-3 with offload on one card: CPU Adam over a billion parameters.
    let offloaded = estimate_all(&Scenario {
        sharding: Sharding::Zero3,
        offload: true,
        cards: 1,
        ..billion()
    })
    .unwrap();
    let t = &offloaded.perf.time;
    assert!(t.optimizer_change_s > largest_part(&offloaded), "{t:?}");
    assert_eq!(t.bound, StepBound::Offload);
    assert_eq!(
        offloaded.lever_baseline.unwrap().limit,
        hsi_gpu_core::levers::Limit::Offload
    );
    // A faster host runs CPU Adam faster too.
    let host = offloaded
        .levers
        .iter()
        .find(|o| o.lever == hsi_gpu_core::levers::Lever::HostCpu)
        .unwrap();
    assert!(host.speedup.unwrap() > 1.2, "{host:?}");
    // The billion parameters' all-reduce over PCIe on eight cards, not hidden by a
    // backward of four samples.
    let pcie = run(&Scenario {
        gpu: "rtx_4090".into(),
        interconnect: Interconnect::Pcie,
        ..billion()
    });
    let t = &pcie.perf.time;
    assert!(t.allreduce_exposed_s > largest_part(&pcie), "{t:?}");
    assert_eq!(t.bound, StepBound::Interconnect);
    // Where the GPU takes longest, it bounds the step as before.
    let nvswitch = run(&Scenario {
        batch_per_gpu: 128,
        ..billion()
    });
    assert_eq!(nvswitch.perf.time.bound, StepBound::Device);
}

#[test]
fn zero1_moves_the_bytes_of_ddp_and_zero3_half_again() {
    // fp32 keeps the same bytes per gradient and weight, so only the volume differs:
    // 3Ψ against 2Ψ (latency aside: DDP's buckets pay it many times).
    let fp32 = |sharding| {
        let mut s = Scenario {
            sharding,
            precision: Precision::Fp32,
            ..billion()
        };
        s.perf.scaling.hop_latency_s = 0.0;
        run(&s)
    };
    let (ddp, z1, z3) = (
        fp32(Sharding::None),
        fp32(Sharding::Zero1),
        fp32(Sharding::Zero3),
    );
    let ratio = z3.perf.time.allreduce_s / ddp.perf.time.allreduce_s;
    assert!((ratio - 1.5).abs() < 1e-6, "{ratio}");
    // ZeRO-1: a reduce-scatter and an all-gather move what one all-reduce does (2Ψ).
    let ratio = z1.perf.time.allreduce_s / ddp.perf.time.allreduce_s;
    assert!((ratio - 1.0).abs() < 1e-6, "{ratio}");
}

#[test]
fn two_nodes_of_eight_give_a_sixteen_gpu_point_limited_by_the_network() {
    let two = |link, nics| {
        run(&Scenario {
            nodes: 2,
            node_link: link,
            nics_per_node: nics,
            precision: Precision::Fp32,
            ..billion()
        })
    };
    let r = two(NodeLink::IbHdr, 1);
    let at = |r: &Report, n: u32| r.perf.scaling.nodes.iter().find(|p| p.nodes == n).cloned();
    let sixteen = at(&r, 2).expect("a two-node point");
    let eight = at(&r, 1).expect("a one-node point");
    assert_eq!(sixteen.cards, 16);
    assert_eq!(r.perf.time.step_s, sixteen.step_s);
    assert!(sixteen.efficiency < eight.efficiency);
    // Its collectives run at the NIC's rate, not NVSwitch's.
    let s = &Scenario::default().perf.scaling;
    let net = Network::new(NodeLink::IbHdr, 1, 2, s);
    assert!(net.node_bytes_per_s < r.perf.scaling.ddp[0].points[7].bus_bytes_per_s);
    let bytes = r.perf.scaling.gradient_bytes;
    let no_latency = Network {
        latency_s: 0.0,
        ..net
    };
    let t = collective_s(Collective::AllReduce, bytes, 8, 1e30, 0.0, &no_latency);
    assert!(
        (bus_bandwidth(Collective::AllReduce, bytes, t, 16) / net.node_bytes_per_s - 1.0).abs()
            < 1e-9
    );
    // A faster network shortens the 16-GPU step; the 8-GPU box does not change.
    let fast = two(NodeLink::IbNdr, 8);
    assert!(at(&fast, 2).unwrap().step_s < sixteen.step_s);
    assert_eq!(at(&fast, 1).unwrap().step_s, eight.step_s);
    assert_eq!(r.perf.scaling.chosen, Interconnect::Nvswitch);
    // The cluster costs two boxes and their NICs.
    let one = run(&billion());
    assert!(r.perf.cost.capex_usd > 2.0 * one.perf.cost.capex_usd);
}

#[test]
fn one_box_without_sharding_is_unchanged_by_the_new_fields() {
    let r = run(&billion());
    assert!(r.perf.scaling.nodes.is_empty());
    assert_eq!(r.memory.sharding_buffers, 0.0);
    assert_eq!(r.perf.time.optimizer_change_s, 0.0);
}

#[test]
fn a_cluster_in_the_comparison_counts_all_its_gpus_power_and_price() {
    let mut priced = billion();
    priced.cost.card_price_usd = Some(25_000.0);
    let one = hsi_gpu_core::compare::evaluate(&priced).unwrap();
    let two = hsi_gpu_core::compare::evaluate(&Scenario { nodes: 2, ..priced }).unwrap();
    assert_eq!((one.cards, two.cards), (8, 16));
    assert!((two.power_watts / one.power_watts - 2.0).abs() < 1e-9);
    assert!(two.tco_usd.unwrap() > 2.0 * one.tco_usd.unwrap());
}

#[test]
fn independent_runs_stay_in_one_box_whatever_the_nodes() {
    // Nodes are a data-parallel run's (`perf::usage`); independent runs are one per card
    // of one box, so no node table is offered as theirs and nothing changes with nodes.
    let mut s = Scenario {
        cards: 4,
        ..Scenario::default()
    };
    s.workload.mode = hsi_gpu_core::scenario::ParallelMode::ParallelExperiments;
    let one = run(&s);
    let two = run(&Scenario {
        nodes: 2,
        ..s.clone()
    });
    assert!(two.perf.scaling.nodes.is_empty());
    assert_eq!(one.perf.time.samples_per_s, two.perf.time.samples_per_s);
    assert_eq!(one.perf.cost.tco_usd, two.perf.cost.tco_usd);
    // DDP over the same nodes has them.
    s.workload.mode = hsi_gpu_core::scenario::ParallelMode::Ddp;
    assert!(!run(&Scenario { nodes: 2, ..s })
        .perf
        .scaling
        .nodes
        .is_empty());
}
