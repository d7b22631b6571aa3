//! Property tests over random valid scenarios and random or hostile JSON.

use hsi_gpu_core::analysis::analyze;
use hsi_gpu_core::measurement::{compare, measurement_from_json};
use hsi_gpu_core::memory::{breakdown, breakdown_at, breakdown_of, total_at, MemoryBreakdown};
use hsi_gpu_core::scaling::valid_interconnects;
use hsi_gpu_core::scenario::{
    scenario_from_json, ModelChoice, Optimizer, Precision, Scenario, VitSize,
};
use hsi_gpu_core::{build_model, estimate, gpu, zoo};
use proptest::prelude::*;

fn preset_scenario() -> impl Strategy<Value = Scenario> {
    let zoo_len = zoo::ZOO.len();
    let gpu_len = gpu::GPUS.len();
    (
        (0..zoo_len, 20u32..=300, 0u32..3, 2u32..=30),
        (
            1u32..=512,
            0..Precision::ALL.len(),
            0..Optimizer::ALL.len(),
            any::<bool>(),
        ),
        (
            0..gpu_len,
            1u32..=8,
            prop::option::of(prop::sample::select(vec![VitSize::Small, VitSize::Base])),
        ),
    )
        .prop_map(
            |(
                (model, bands, patch_step, classes),
                (batch, precision, optimizer, checkpointing),
                (gpu, cards, size),
            )| {
                let entry = &zoo::ZOO[model];
                let id = entry.id.to_string();
                // Multiples of 16 above the paper's patch keep every preset's geometry valid.
                let patch = entry.default_patch + 16 * patch_step;
                // Only the ViT has sizes; other presets reject the option.
                let size = if entry.id == "vit" { size } else { None };
                Scenario {
                    model: ModelChoice::Preset {
                        id,
                        width: None,
                        size,
                    },
                    bands,
                    patch,
                    classes,
                    batch_per_gpu: batch,
                    precision: Precision::ALL[precision],
                    optimizer: Optimizer::ALL[optimizer],
                    checkpointing,
                    gpu: gpu::GPUS[gpu].id.to_string(),
                    interconnect: valid_interconnects(&gpu::GPUS[gpu])[0],
                    cards,
                    ..Scenario::default()
                }
            },
        )
}

/// Presets whose layer sizes are functions of B: Hu's 1-D CNN sets its kernel to
/// ceil(B/9) and its pool to ceil(kernel/5), so a few more bands can shrink the feature
/// map and the memory with it (see `bands_can_shrink_hu1d`).
const SIZED_BY_BANDS: [&str; 1] = ["hu1d"];
/// DBDA's first spectral conv strides 2 over the bands: (B - 7) / 2 + 1 floors, so only
/// even steps in B are monotone.
const STRIDE_2_OVER_BANDS: [&str; 1] = ["dbda"];

fn zoo_id(s: &Scenario) -> &str {
    match &s.model {
        ModelChoice::Preset { id, .. } => id,
        ModelChoice::Custom { .. } => "",
    }
}

fn finite_non_negative(name: &str, x: f64) {
    assert!(x.is_finite() && x >= 0.0, "{name} = {x}");
}

/// No figure of the written report is -0.0 (an empty `sum` of floats), which JSON shows
/// as "-0.0".
fn no_negative_zero(v: &serde_json::Value, path: &str) {
    match v {
        serde_json::Value::Number(n) => {
            let x = n.as_f64().unwrap();
            assert!(!(x == 0.0 && x.is_sign_negative()), "{path} is -0.0");
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                no_negative_zero(x, &format!("{path}[{i}]"));
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                no_negative_zero(x, &format!("{path}.{k}"));
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// No panic; every figure finite and non-negative; the total is the sum of its terms.
    #[test]
    fn estimates_are_finite_and_consistent(s in preset_scenario()) {
        let r = estimate(&s);
        prop_assume!(r.is_ok(), "{:?}", r.err());
        let r = r.unwrap();
        let m = &r.memory;
        for (name, x) in [
            ("context", m.cuda_context), ("weights", m.weights), ("gradients", m.gradients),
            ("optimizer", m.optimizer_states), ("activations", m.activations),
            ("transient", m.transient), ("allocator", m.allocator), ("total", m.total),
            ("capacity", m.capacity), ("fwd flops", r.fwd_flops_per_sample),
            ("bwd flops", r.bwd_flops_per_sample),
        ] {
            finite_non_negative(name, x);
        }
        no_negative_zero(&serde_json::to_value(&r).unwrap(), "report");
        let sum = m.cuda_context + m.weights + m.gradients + m.optimizer_states + m.activations + m.transient + m.allocator;
        prop_assert!((sum - m.total).abs() <= 1e-9 * m.total);
        prop_assert_eq!(m.fits, m.total <= m.capacity);
        for l in &r.layers {
            for x in [l.fwd_flops, l.bwd_flops, l.other_flops, l.input_bytes, l.output_bytes, l.weight_bytes, l.saved_bytes] {
                finite_non_negative(&l.name, x);
            }
        }
    }

    /// The tensors never shrink when batch, patch or bands grow (up to 0.5 %: 512-byte
    /// rounding). The device total may: PyTorch's caching allocator may pack a larger step
    /// into fewer segments, and past 2^31 elements cuDNN's calls are cut along the batch, so
    /// their workspaces shrink; but it never falls below the smaller step's tensors.
    #[test]
    fn memory_is_monotone_in_batch_patch_and_bands(s in preset_scenario(), extra in 1u32..16) {
        let gpu = gpu::gpu_by_id(&s.gpu).unwrap();
        let memory = |s: &Scenario| build_model(s).ok().and_then(|m| breakdown_of(&m, s, gpu, s.batch_per_gpu).ok());
        let base = memory(&s);
        prop_assume!(base.is_some());
        let base = base.unwrap();
        let mut grown = vec![
            Scenario { batch_per_gpu: s.batch_per_gpu + extra, ..s.clone() },
            Scenario { patch: s.patch + extra, ..s.clone() },
        ];
        let id = zoo_id(&s);
        if !SIZED_BY_BANDS.contains(&id) {
            let step = if STRIDE_2_OVER_BANDS.contains(&id) { 2 * extra } else { extra };
            grown.push(Scenario { bands: s.bands + step, ..s.clone() });
        }
        let terms = |m: &MemoryBreakdown| [
            ("weights", m.weights), ("gradients", m.gradients), ("optimizer", m.optimizer_states),
            ("activations", m.activations), ("transient", m.transient),
        ];
        let tensors = |m: &MemoryBreakdown| terms(m).iter().map(|t| t.1).sum::<f64>() + m.sharding_buffers + m.input_cube;
        for grown in grown {
            if let Some(bigger) = memory(&grown) {
                for ((name, was), (_, is)) in terms(&base).into_iter().zip(terms(&bigger)) {
                    prop_assert!(is >= was * (1.0 - 5e-3), "{name} {was} -> {is} for {grown:?}");
                }
                prop_assert!(bigger.total >= tensors(&base) * (1.0 - 5e-3),
                    "total {} below the tensors {} for {grown:?}", bigger.total, tensors(&base));
            }
        }
    }

    /// The batch-linear memory terms of one analysis equal a fresh analysis at any batch.
    #[test]
    fn memory_lines_equal_a_fresh_analysis(s in preset_scenario(), batch in 1u64..4096) {
        let model = build_model(&s);
        prop_assume!(model.is_ok());
        let model = model.unwrap();
        let gpu = gpu::gpu_by_id(&s.gpu).unwrap();
        let (Ok(one), Ok(fresh)) = (analyze(&model, 1, s.precision), analyze(&model, batch, s.precision)) else {
            return Err(TestCaseError::reject("invalid geometry"));
        };
        let from_lines = breakdown_at(&one, batch, &s, gpu);
        let direct = breakdown(&fresh, &s, gpu);
        prop_assert!((from_lines.total - direct.total).abs() <= 1e-9 * direct.total, "{} vs {}", from_lines.total, direct.total);
        prop_assert_eq!(from_lines.activations, direct.activations);
    }

    /// The reported largest batch fits within the headroom budget and one more does not.
    #[test]
    fn max_batch_fits_and_one_more_does_not(s in preset_scenario()) {
        let r = estimate(&s);
        prop_assume!(r.is_ok(), "{:?}", r.err());
        let r = r.unwrap();
        let gpu = gpu::gpu_by_id(&s.gpu).unwrap();
        let model = build_model(&s).unwrap();
        let budget = r.memory.capacity * (1.0 - s.memory.headroom);
        if r.max_batch > 0 {
            prop_assert!(total_at(&model, &s, gpu, r.max_batch).unwrap() <= budget);
        }
        if r.max_batch < hsi_gpu_core::scenario::MAX_BATCH {
            prop_assert!(total_at(&model, &s, gpu, r.max_batch + 1).unwrap() > budget);
        }
    }

    /// Random bytes never panic the parser.
    #[test]
    fn random_text_gives_an_error_or_a_scenario(text in ".{0,200}") {
        let _ = scenario_from_json(&text);
    }

    /// Valid JSON with random values in known fields: a clear error or a valid estimate.
    #[test]
    fn hostile_values_give_field_errors(
        field in prop::sample::select(vec!["bands", "patch", "classes", "batch_per_gpu", "cards", "gpu", "precision", "memory", "workload", "model"]),
        value in hostile_value(),
    ) {
        let text = format!("{{\"{field}\": {value}}}");
        match scenario_from_json(&text) {
            Err(e) => prop_assert!(!e.field.is_empty() && !e.value.is_empty()),
            Ok(s) => {
                if let Err(errors) = estimate(&s) {
                    prop_assert!(errors.iter().all(|e| !e.field.is_empty()));
                }
            }
        }
    }
}

/// JSON values that break careless readers: negatives, overflow, wrong types, empties.
fn hostile_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("-1".to_string()),
        Just("1e400".to_string()),
        Just("18446744073709551616".to_string()),
        Just("4.5".to_string()),
        Just("null".to_string()),
        Just("\"\"".to_string()),
        Just("[]".to_string()),
        Just("[0, 1e9]".to_string()),
        Just("{}".to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| format!("{v:?}")),
    ]
}

proptest! {
    /// The hand-written layer reader: a hostile value in any op's field gives a field
    /// error (naming the layer) or a scenario that estimates or says why not.
    #[test]
    fn hostile_layer_fields_give_field_errors(
        op in prop::sample::select(vec!["conv", "linear", "group_norm", "act", "dropout", "max_pool", "adaptive_avg_pool", "upsample", "reshape", "permute", "concat", "attention", "take_token", "scale", "drop_path", "slice"]),
        field in prop::sample::select(vec!["dims", "out_channels", "kernel", "stride", "padding", "dilation", "groups", "bias", "out_features", "kind", "p", "output", "scale", "shape", "order", "axis", "heads", "head_dim", "index", "from", "name", "ceil_mode", "mode", "extra_params", "start", "end", "step"]),
        value in hostile_value(),
    ) {
        let layer = format!(r#"{{"op": "{op}", "{field}": {value}}}"#);
        let text = format!(
            r#"{{"model": {{"kind": "custom", "spec": {{"name": "x", "input": [1, 30, 9, 9], "layers": [{layer}]}}}}}}"#
        );
        match scenario_from_json(&text) {
            // A number JSON cannot hold (1e400) is a syntax error: line and column instead.
            Err(e) => prop_assert!(
                e.field.starts_with("model") || e.value.contains(" at line "),
                "{e}"
            ),
            Ok(s) => {
                if let Err(errors) = estimate(&s) {
                    prop_assert!(errors.iter().all(|e| !e.field.is_empty()));
                }
            }
        }
    }

    /// The hand-written measurement reader: a hostile value gives a field error, or a
    /// measurement that compares with the default scenario or says why not.
    #[test]
    fn hostile_measurement_fields_give_field_errors(
        field in prop::sample::select(vec!["batch", "bands", "patch", "classes", "precision", "checkpointing", "step_time_s", "step_times_s", "peak_allocated_bytes", "peak_reserved_bytes", "context_bytes", "max_batch", "sweep", "device", "model", "note"]),
        value in hostile_value(),
    ) {
        let text = format!(r#"{{"batch": 8, "{field}": {value}}}"#);
        match measurement_from_json(&text) {
            Err(e) => prop_assert!(!e.field.is_empty() && !e.allowed.is_empty(), "{e}"),
            Ok(m) => {
                if let Err(errors) = compare(&Scenario::default(), &m) {
                    prop_assert!(errors.iter().all(|e| !e.field.is_empty()));
                }
            }
        }
    }
}

#[test]
fn deep_nesting_and_huge_documents_are_rejected_cleanly() {
    let deep = format!(
        "{{\"model\": {}{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(scenario_from_json(&deep).is_err());
    let huge = format!(
        "{{\"dataset\": \"{}\"}}",
        "x".repeat(hsi_gpu_core::scenario::MAX_JSON_BYTES)
    );
    let e = scenario_from_json(&huge).unwrap_err();
    assert_eq!(e.field, "(document)");
}

/// The exception above is real, not a bug: Hu's kernel grows with B and the flattened
/// feature count drops where the pool grows.
#[test]
fn bands_can_shrink_hu1d() {
    let at = |bands| {
        let s = Scenario {
            model: ModelChoice::Preset {
                id: "hu1d".into(),
                width: None,
                size: None,
            },
            bands,
            patch: 1,
            ..Scenario::default()
        };
        estimate(&s).unwrap().params
    };
    assert!((20..300).any(|b| at(b + 1) < at(b)));
}
