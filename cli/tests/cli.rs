//! The `hsi-gpu` binary: JSON in, JSON out, one-line errors with a non-zero exit.

mod common;

use common::{json, one_line_error, run};

#[test]
fn estimate_of_empty_object_is_the_default_scenario_report() {
    let report = json(&run(&["estimate", "-"], "{}"));
    let expected = hsi_gpu_core::estimate(&hsi_gpu_core::Scenario::default()).unwrap();
    assert_eq!(report["params"], expected.params);
    assert_eq!(
        report["memory"]["total"].as_f64().unwrap(),
        expected.memory.total
    );
    assert_eq!(report["max_batch"], expected.max_batch);
    assert_eq!(
        report["layers"].as_array().unwrap().len(),
        expected.layers.len()
    );
}

#[test]
fn estimate_reads_a_file_and_scenario_prints_an_editable_default() {
    let default = run(&["scenario"], "");
    let path = std::env::temp_dir().join(format!("hsi-gpu-cli-{}.json", std::process::id()));
    let mut scenario = json(&default);
    // PyTorch's default: cuDNN's heuristics pick the convolution algorithms.
    assert_eq!(scenario["cudnn_benchmark"], false);
    scenario["batch_per_gpu"] = 8.into();
    std::fs::write(&path, scenario.to_string()).unwrap();
    let small = json(&run(&["estimate", path.to_str().unwrap()], ""));
    let large = json(&run(&["estimate", "-"], "{\"batch_per_gpu\": 256}"));
    std::fs::remove_file(&path).unwrap();
    assert!(small["memory"]["activations"].as_f64() < large["memory"]["activations"].as_f64());
}

/// A file saved by a Windows editor starts with a byte-order mark: it reads the same.
#[test]
fn a_byte_order_mark_before_the_json_is_skipped() {
    let with_bom = json(&run(&["estimate", "-"], "\u{feff}{\"batch_per_gpu\": 8}"));
    let plain = json(&run(&["estimate", "-"], "{\"batch_per_gpu\": 8}"));
    assert_eq!(with_bom["memory"]["total"], plain["memory"]["total"]);
}

#[test]
fn presets_list_gpus_models_and_datasets() {
    let presets = json(&run(&["presets"], ""));
    for (key, id) in [
        ("gpus", "rtx_a5500"),
        ("models", "hybridsn"),
        ("datasets", "indian_pines"),
    ] {
        let ids: Vec<_> = presets[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap().to_string())
            .collect();
        assert!(ids.iter().any(|i| i == id), "{key} lacks {id}: {ids:?}");
    }
}

#[test]
fn estimate_carries_the_levers_the_best_lever_and_inference() {
    let report = json(&run(&["estimate", "-"], "{}"));
    let expected = hsi_gpu_core::whatifs::estimate_all(&hsi_gpu_core::Scenario::default()).unwrap();
    let levers = report["levers"].as_array().unwrap();
    assert_eq!(levers.len(), expected.levers.len());
    for (got, want) in levers.iter().zip(&expected.levers) {
        for key in [
            "lever",
            "factor",
            "time_to_result_s",
            "speedup",
            "largest_batch",
            "largest_patch",
        ] {
            assert!(
                !got[key].is_null() || key == "largest_patch",
                "{key} in {got}"
            );
        }
        let (got, want) = (got["speedup"].as_f64().unwrap(), want.speedup.unwrap());
        assert!((got / want - 1.0).abs() < 1e-12, "{got} vs {want}");
    }
    let best = expected.best_lever.map(|b| b.lever.id());
    assert_eq!(report["best_lever"]["lever"].as_str(), best);
    let inference = &report["inference"];
    let want = expected.inference.unwrap();
    assert_eq!(inference["scene_pixels"], want.scene_pixels);
    assert_eq!(inference["max_batch_no_grad"], want.max_batch_no_grad);
    for key in ["eval_pass_s", "scene_prediction_s", "no_grad_peak_bytes"] {
        assert!(inference[key].as_f64().unwrap() > 0.0, "{key}");
    }
}

#[test]
fn presets_give_every_card_ecc_form_factor_and_dated_prices() {
    let presets = json(&run(&["presets"], ""));
    let gpus = presets["gpus"].as_array().unwrap();
    for id in [
        "h200_sxm",
        "b200",
        "rtx_pro_6000_bw",
        "rtx_5080",
        "rtx_5070_ti",
        "l40",
        "a40",
        "rtx_4090_d",
        "a800_80_pcie",
        "h800_sxm",
        "h20",
        "rtx_2080_ti",
        "titan_rtx",
    ] {
        assert!(gpus.iter().any(|g| g["id"] == id), "{id} missing");
    }
    for g in gpus {
        let market = &g["market"];
        assert!(market["ecc"].is_string(), "{g}");
        assert!(market["form"]["cooler"].is_string(), "{g}");
        if let Some(price) = market["street"].as_object() {
            assert!(price["date"].as_str().unwrap().len() == 7, "{g}");
            assert!(!price["source"].as_str().unwrap().is_empty());
        }
    }
    let a5500 = gpus.iter().find(|g| g["id"] == "rtx_a5500").unwrap();
    assert!(a5500["market"]["street"]["amount"].as_f64().unwrap() > 0.0);
}

/// A typo's error says what it most likely meant, right after the value; a value with no
/// near candidate gets no guess.
#[test]
fn a_typo_is_told_what_it_most_likely_meant() {
    for (input, said) in [
        (
            "{\"bandz\": 200}",
            "= 200 (did you mean `bands`?); allowed:",
        ),
        (
            "{\"gpu\": \"RTX-4090\"}",
            "got RTX-4090 (did you mean `rtx_4090`?)",
        ),
        (
            "{\"precision\": \"amp_bf61\"}",
            "(did you mean `amp_bf16`?)",
        ),
    ] {
        let stderr = one_line_error(&run(&["estimate", "-"], input));
        assert!(stderr.contains(said), "{input}: {stderr}");
    }
    let stderr = one_line_error(&run(&["estimate", "-"], "{\"colour\": 1}"));
    assert!(!stderr.contains("did you mean"), "{stderr}");
}

#[test]
fn bad_input_exits_non_zero_with_one_line_naming_the_field() {
    for (input, field) in [
        ("{\"batch_per_gpu\": \"x\"}", "batch_per_gpu"),
        ("{\"batch_per_gpu\": 0}", "batch_per_gpu"),
        ("{\"workload\": {\"epochs\": -1}}", "workload.epochs"),
        ("{\"gpu\": \"gtx_480\"}", "gpu"),
        ("{\"colour\": 1}", "colour"),
        ("{\"patch\": 25", "(document)"),
        ("[1, 2]", "(document)"),
    ] {
        let stderr = one_line_error(&run(&["estimate", "-"], input));
        assert!(stderr.contains(field), "{input}: {stderr}");
    }
    // A syntax error in serde_json's own words, which the page leaves out.
    let stderr = one_line_error(&run(&["estimate", "-"], "{\"bands\": [1, 2\n 3]}"));
    assert!(
        stderr.contains("not valid JSON: expected `,` or `]` at line 2 column 2"),
        "{stderr}"
    );
    assert!(one_line_error(&run(&["frobnicate"], "")).contains("usage"));
    // Asked for, the usage is the answer: on stdout, status 0.
    for flag in ["--help", "-h", "help"] {
        let out = run(&[flag], "");
        assert_eq!(out.status.code(), Some(0), "{flag}");
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("usage: hsi-gpu"));
    }
}

#[test]
fn a_typo_in_any_section_exits_2_naming_its_path_and_the_allowed_fields() {
    for (text, path, allowed) in [
        (
            r#"{"perf": {"overlap_typo": 1}}"#,
            "perf.overlap_typo",
            "compute_efficiency",
        ),
        (
            r#"{"perf": {"scaling": {"overlapp": 1}}}"#,
            "perf.scaling.overlapp",
            "bucket_bytes",
        ),
        (r#"{"cudnn_bench": true}"#, "cudnn_bench", "cudnn_benchmark"),
        (
            r#"{"workload": {"epoch": 3}}"#,
            "workload.epoch",
            "sweep_runs",
        ),
        (
            r#"{"memory": {"head_room": 0.3}}"#,
            "memory.head_room",
            "fragmentation",
        ),
        (
            r#"{"cost": {"pue_": 1.1}}"#,
            "cost.pue_",
            "electricity_usd_per_kwh",
        ),
        (
            r#"{"model": {"kind": "preset", "id": "ssrn", "size_": "base"}}"#,
            "model.size_",
            "width",
        ),
        (
            r#"{"model": {"kind": "custom", "spec": {"name": "m", "input": [4], "layers": [{"op": "flatten", "dims": 1}]}}}"#,
            "model.spec.layers[0].dims",
            "from",
        ),
    ] {
        let error = one_line_error(&run(&["estimate", "-"], text));
        assert!(error.contains(&format!("{path}: ")), "{text}: {error}");
        assert!(error.contains(allowed), "{text}: {error}");
    }
}

#[test]
fn estimate_reports_sharding_offload_and_nodes() {
    let scenario = r#"{"model": {"kind": "preset", "id": "vit", "size": "large"}, "patch": 32, "gpu": "h100_sxm",
        "interconnect": "nvswitch", "cards": 8, "precision": "amp_bf16", "sharding": "zero3",
        "offload": true, "nodes": 2, "node_link": "roce_200g", "nics_per_node": 2}"#;
    let sharded = json(&run(&["estimate", "-"], scenario));
    let plain = json(&run(&["estimate", "-"], &scenario.replace("zero3", "none")));
    let memory = |r: &serde_json::Value, term: &str| r["memory"][term].as_f64().unwrap();
    assert!(memory(&sharded, "weights") < memory(&plain, "weights") / 8.0);
    assert!(memory(&sharded, "sharding_buffers") > 0.0);
    assert!(memory(&sharded, "offloaded_to_host") > 0.0);
    let nodes = sharded["perf"]["scaling"]["nodes"].as_array().unwrap();
    let two = nodes.iter().find(|p| p["nodes"] == 2).unwrap();
    assert_eq!(two["cards"], 16);
    assert_eq!(two["step_s"], sharded["perf"]["time"]["step_s"]);
    assert!(
        sharded["perf"]["time"]["optimizer_change_s"]
            .as_f64()
            .unwrap()
            > 0.0
    );
}

#[test]
fn options_lays_the_comparison_and_its_lever_rows_side_by_side() {
    let out = json(&run(&["options", "-"], "{}"));
    let options = out["report"]["options"].as_array().unwrap();
    assert_eq!(options.len(), 7, "the article's option set");
    let levers = out["levers"].as_array().unwrap();
    assert!(levers.len() >= 6, "{levers:?}");
    for row in levers {
        assert_eq!(row["outcomes"].as_array().unwrap().len(), 7, "{row}");
    }
    let bad = run(&["options", "-"], r#"{"options": []}"#);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("options"));
}

#[test]
fn thesis_maps_the_default_task_from_small_hsi_models_to_a_billion_parameters() {
    let out = run(&["thesis", "-"], "{}");
    let map = json(&out);
    let cells = map["cells"].as_array().expect("cells");
    assert!(!cells.is_empty());
    for c in cells {
        for key in ["model", "params", "patch", "bands", "best", "limit", "aids"] {
            assert!(c.get(key).is_some(), "{key} in {c}");
        }
    }
    // A cell the model cannot be built for has 0 parameters and its error.
    let built: Vec<u64> = cells
        .iter()
        .filter(|c| c["error"].is_null())
        .filter_map(|c| c["params"].as_u64())
        .collect();
    assert!(*built.iter().min().unwrap() < 1_000_000, "small HSI models");
    assert!(*built.iter().max().unwrap() >= 1_000_000_000, "a 1 B ViT");
    // Cells with a best lever carry its speed-up (or none when it makes the cell fit).
    let best = cells
        .iter()
        .find(|c| c["best"].is_object())
        .expect("a best lever");
    assert!(best["best"]["lever"].is_string() && best["best"].get("speedup").is_some());
    assert!(map["flips"].as_array().is_some_and(|f| !f.is_empty()));
    assert_eq!(map["claims"].as_array().map(Vec::len), Some(4));
    let bad = run(&["thesis", "-"], r#"{"gpu": "nope"}"#);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("gpu"));
}
