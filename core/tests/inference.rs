//! Evaluation and whole-scene prediction: no-grad memory below training memory, scene
//! and test sizes from the dataset catalog, smaller cards slower.

mod common;

use hsi_gpu_core::analysis::analyze;
use hsi_gpu_core::dataset::dataset_by_id;
use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::inference::{inference, no_grad_memory, InferenceReport};
use hsi_gpu_core::scenario::{scenario_from_json, Scenario};
use hsi_gpu_core::{build_model, estimate, zoo};

fn run(s: &Scenario) -> InferenceReport {
    let spec = build_model(s).unwrap();
    let a = analyze(&spec, s.batch_per_gpu.into(), s.precision).unwrap();
    let gpu = gpu_by_id(&s.gpu).unwrap();
    let run_s = estimate(s).unwrap().perf.epoch.total_s;
    inference(&spec, &a, s, gpu, run_s).unwrap().unwrap()
}

#[test]
fn no_grad_memory_is_below_training_memory_for_every_zoo_model() {
    for id in zoo::zoo_ids() {
        let json = format!(r#"{{"model": {{"kind": "preset", "id": "{id}"}}}}"#);
        let s = scenario_from_json(&json).unwrap();
        let Ok(report) = estimate(&s) else { continue };
        let spec = build_model(&s).unwrap();
        let a = analyze(&spec, s.batch_per_gpu.into(), s.precision).unwrap();
        let gpu = gpu_by_id(&s.gpu).unwrap();
        let no_grad = no_grad_memory(&spec, &a, &s, gpu).at(s.batch_per_gpu);
        assert!(
            no_grad < report.memory.total,
            "{id}: {no_grad} vs {}",
            report.memory.total
        );
        let inf = run(&s);
        assert!(
            inf.max_batch_no_grad >= report.max_batch.min(inf.scene_pixels as u32),
            "{id}"
        );
    }
}

#[test]
fn scene_and_test_pixels_come_from_the_dataset() {
    let s = scenario_from_json(r#"{"dataset": "pavia_university"}"#).unwrap();
    let d = dataset_by_id("pavia_university").unwrap();
    let inf = run(&s);
    assert_eq!(inf.scene_pixels, u64::from(d.height) * u64::from(d.width));
    let train = (d.labeled_pixels as f64 * s.workload.train_fraction).ceil() as u64;
    assert_eq!(inf.test_pixels, d.labeled_pixels - train);
    let pass = inf.eval_pass_s.unwrap();
    assert!(pass > 0.0 && pass < inf.scene_prediction_s.unwrap());
    assert_eq!(
        inf.eval_every_epoch_s,
        Some(f64::from(s.workload.epochs) * pass)
    );
}

#[test]
fn a_smaller_card_predicts_the_scene_more_slowly() {
    let s = Scenario::default();
    let inf = run(&s);
    let own = inf.scene_prediction_s.unwrap();
    let t4 = inf.deployment.iter().find(|d| d.gpu == "T4").unwrap();
    assert!(t4.scene_prediction_s.unwrap() > own, "{t4:?} vs {own}");
    assert!(
        t4.max_batch_no_grad <= inf.max_batch_no_grad,
        "16 GB against 24 GB"
    );
}

#[test]
fn without_a_catalog_dataset_there_is_no_scene() {
    let s = Scenario {
        dataset: "my_scene".into(),
        ..Scenario::default()
    };
    let spec = build_model(&s).unwrap();
    let a = analyze(&spec, 64, s.precision).unwrap();
    let gpu = gpu_by_id(&s.gpu).unwrap();
    assert_eq!(inference(&spec, &a, &s, gpu, 1.0).unwrap(), None);
}

/// The no-grad activation peak against PyTorch: `fixtures/pytorch_no_grad.json`
/// (`tools/validate_no_grad.py`: live storages after every ATen op of an eval-mode
/// no-grad forward on the CPU). The table docs/validation.md quotes prints with --nocapture.
#[test]
fn the_no_grad_peak_matches_pytorchs_live_tensors() {
    use hsi_gpu_core::inference::{live_graph, no_grad_peak_per_sample};
    use hsi_gpu_core::scenario::Precision;
    use hsi_gpu_core::zoo::zoo_entry;
    #[derive(serde::Deserialize)]
    struct Case {
        model: String,
        options: common::CaseOptions,
        batch: u64,
        peak_bytes: f64,
    }
    #[derive(serde::Deserialize)]
    struct Fixture {
        cases: Vec<Case>,
    }
    let fixture: Fixture = common::read_fixture("pytorch_no_grad.json");
    let mut errors = Vec::new();
    println!("model            PyTorch peak   estimate    error");
    for c in &fixture.cases {
        let spec = (zoo_entry(&c.model).unwrap().build)(&c.options.zoo()).unwrap();
        let a = analyze(&spec, c.batch, Precision::Fp32).unwrap();
        let estimate = no_grad_peak_per_sample(&live_graph(&spec, &a)) * c.batch as f64;
        let error = estimate / c.peak_bytes - 1.0;
        println!(
            "{:<15} {:>13} {:>10.0} {:>+8.1} %",
            c.model,
            c.peak_bytes,
            estimate,
            100.0 * error
        );
        errors.push(error.abs());
    }
    errors.sort_by(f64::total_cmp);
    let (median, worst) = (errors[errors.len() / 2], errors[errors.len() - 1]);
    println!(
        "median |error| {:.1} %, worst {:.1} %",
        100.0 * median,
        100.0 * worst
    );
    assert!(
        median < 0.2 && worst < 0.5,
        "median {median}, worst {worst}"
    );
}

/// The shares of a training run are over the run the page and the lever table show
/// (`perf.epoch.run_s`, start-up included), so the panel's figures reproduce them.
#[test]
fn the_shares_are_of_the_run_as_shown() {
    let r = hsi_gpu_core::whatifs::estimate_all(&Scenario::default()).unwrap();
    let inf = r.inference.unwrap();
    let run_s = r.perf.epoch.run_s;
    assert!(run_s > r.perf.epoch.total_s);
    assert_eq!(
        inf.eval_vs_training,
        Some(inf.eval_every_epoch_s.unwrap() / run_s)
    );
    assert_eq!(
        inf.prediction_vs_training,
        Some(inf.scene_prediction_s.unwrap() / run_s)
    );
}
