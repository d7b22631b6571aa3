//! The figures the docs state from the command line are the command line's: a stale
//! figure fails here, and the message gives the one the CLI prints now.

mod common;

use common::{json, repo_file, run};
use hsi_gpu_core::format;
use serde_json::Value;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

fn estimate(scenario: &str) -> Value {
    json(&run(&["estimate", "-"], scenario))
}

/// The words of a lever table in one guide's language.
struct Words {
    file: &'static str,
    /// Between items; between the levers of one item; before a value.
    item: &'static str,
    and: &'static str,
    colon: &'static str,
    /// A speed-up: `{:.2}` and this.
    times: &'static str,
    /// A factor: this and the factor (x2, ×2).
    factor: &'static str,
    open: &'static str,
    close: &'static str,
    comma: &'static str,
    /// Each lever family as `core::levers` names it.
    lever: fn(&str) -> &'static str,
    /// The step's bound and the device's limiter.
    bound: fn(&str) -> &'static str,
    does_not_fit: &'static str,
    makes_it_fit: &'static str,
    /// When no capacity step makes it fit: this, the largest step, and `still_not`.
    nothing_fits: &'static str,
    still_not: &'static str,
    largest_batch: &'static str,
    patch: &'static str,
    others_cannot: &'static str,
    none_gains: &'static str,
}

const EN: Words = Words {
    file: "docs/guide.md",
    item: "; ",
    and: ", ",
    colon: ": ",
    times: "x",
    factor: " x",
    open: " (",
    close: ")",
    comma: ", ",
    lever: |l| match l {
        "memory_capacity" => "capacity",
        "memory_bandwidth" => "bandwidth",
        "compute" => "compute",
        "interconnect" => "NVLink bridges",
        "host_cpu" => "host CPU",
        "input_pipeline" => "cube on the GPU",
        other => panic!("a lever the table does not name: {other}"),
    },
    bound: |b| match b {
        "host" => "host",
        "input" => "input pipeline",
        "device" => "device",
        "compute" => "compute",
        "memory" => "bandwidth",
        "launch" => "launches",
        other => panic!("a bound the table does not name: {other}"),
    },
    does_not_fit: "capacity (does not fit)",
    makes_it_fit: "makes it fit",
    nothing_fits: "none: not even capacity",
    still_not: "makes it fit",
    largest_batch: "largest batch ",
    patch: "patch ",
    others_cannot: "; no other lever makes it fit",
    none_gains: "none gains 2 %",
};

const ZH: Words = Words {
    file: "docs/guide.zh.md",
    item: "；",
    and: "、",
    colon: "：",
    times: " 倍",
    factor: " ×",
    open: "（",
    close: "）",
    comma: "，",
    lever: |l| match l {
        "memory_capacity" => "显存容量",
        "memory_bandwidth" => "带宽",
        "compute" => "算力",
        "interconnect" => "NVLink 桥接",
        "host_cpu" => "主机 CPU",
        "input_pipeline" => "数据立方体放在显卡上",
        other => panic!("a lever the table does not name: {other}"),
    },
    bound: |b| match b {
        "host" => "主机 CPU",
        "input" => "输入管线",
        "device" => "显卡",
        "compute" => "算力",
        "memory" => "带宽",
        "launch" => "内核启动",
        other => panic!("a bound the table does not name: {other}"),
    },
    does_not_fit: "显存容量（放不下）",
    makes_it_fit: "才放得下",
    nothing_fits: "无：显存容量",
    still_not: "也放不下",
    largest_batch: "最大批大小 ",
    patch: "空间块 ",
    others_cannot: "；其他改进都不能让它放下",
    none_gains: "没有一项超过 2 %",
};

/// A lever's factor as the table writes it: 2, 1.5.
fn factor(v: &Value) -> String {
    let x = f(v);
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        x.to_string()
    }
}

/// Levers of more than one factor are named with it (compute x2); the cube on the GPU
/// and the link are one lever each, with no factor to name.
fn has_factor(lever: &str) -> bool {
    !matches!(lever, "interconnect" | "input_pipeline")
}

fn lever_label(w: &Words, l: &Value) -> String {
    let name = l["lever"].as_str().unwrap();
    if has_factor(name) {
        format!("{}{}{}", (w.lever)(name), w.factor, factor(&l["factor"]))
    } else {
        (w.lever)(name).to_string()
    }
}

/// The order the table names levers of one speed-up in.
fn rank(lever: &str) -> usize {
    [
        "compute",
        "memory_bandwidth",
        "host_cpu",
        "input_pipeline",
        "memory_capacity",
        "interconnect",
    ]
    .iter()
    .position(|l| *l == lever)
    .unwrap()
}

/// The table's row for `scenario` (its first cell `label`), as the estimate gives it:
/// the step's bound with host, device and input time per step; the best lever; the
/// other levers by speed-up, those of one speed-up (two decimals) as one item.
fn lever_row(w: &Words, label: &str, report: &Value) -> String {
    let time = &report["perf"]["time"];
    let base = &report["lever_baseline"];
    let levers = report["levers"].as_array().unwrap();
    let ms = |key: &str| format!("{:.1}", f(&time[key]) * 1e3);
    let bound = if !report["memory"]["fits"].as_bool().unwrap() {
        w.does_not_fit.to_string()
    } else {
        let b = time["bound"].as_str().unwrap();
        let mut s = (w.bound)(b).to_string();
        if b == "device" {
            s += w.comma;
            s += (w.bound)(time["limiter"].as_str().unwrap());
        }
        format!(
            "{s}{}{} / {} / {} ms{}",
            w.open,
            ms("host_s"),
            ms("device_s"),
            ms("input_s"),
            w.close
        )
    };
    let capacity: Vec<&Value> = levers
        .iter()
        .filter(|l| l["lever"] == "memory_capacity")
        .collect();
    let largest = capacity.last().unwrap();
    if !report["memory"]["fits"].as_bool().unwrap() {
        let fitting = capacity.iter().find(|l| l["fits"].as_bool().unwrap());
        let best = match fitting {
            Some(l) => format!("{} {}", lever_label(w, l), w.makes_it_fit),
            None => format!(
                "{}{}{} {}",
                w.nothing_fits,
                w.factor,
                factor(&largest["factor"]),
                w.still_not
            ),
        };
        let batches: Vec<String> = capacity
            .iter()
            .map(|l| {
                format!(
                    "{}{}{}",
                    lever_label(w, l),
                    w.colon,
                    format::count(l["largest_batch"].as_u64().unwrap())
                )
            })
            .collect();
        let others = format!(
            "{}{}{}{}{}{}",
            w.largest_batch,
            format::count(base["largest_batch"].as_u64().unwrap()),
            w.open,
            batches.join(w.comma),
            w.close,
            w.others_cannot
        );
        return format!("| {label} | {bound} | {best} | {others} |");
    }
    let speedup = |l: &Value| format!("{:.2}{}", f(&l["speedup"]), w.times);
    let best = match report["best_lever"].as_object() {
        Some(b) => {
            let l = levers
                .iter()
                .find(|l| l["lever"] == b["lever"] && l["factor"] == b["factor"])
                .unwrap();
            format!("{}{}{}", lever_label(w, l), w.colon, speedup(l))
        }
        None => w.none_gains.to_string(),
    };
    let mut rest: Vec<&Value> = levers
        .iter()
        .filter(|l| {
            report["best_lever"]
                .as_object()
                .is_none_or(|b| l["lever"] != b["lever"] || l["factor"] != b["factor"])
        })
        .collect();
    rest.sort_by(|a, b| {
        let key = |l: &Value| (-f(&l["speedup"]), rank(l["lever"].as_str().unwrap()));
        key(a).partial_cmp(&key(b)).unwrap()
    });
    // Items: the levers of one speed-up, as it is written.
    let mut items: Vec<(String, Vec<&Value>)> = Vec::new();
    for l in rest {
        match items.last_mut() {
            Some((s, group)) if *s == speedup(l) => group.push(l),
            _ => items.push((speedup(l), vec![l])),
        }
    }
    let family_size = |name: &str| levers.iter().filter(|l| l["lever"] == name).count();
    let written: Vec<String> = items
        .iter()
        .map(|(s, group)| {
            let mut names: Vec<&str> = group.iter().map(|l| l["lever"].as_str().unwrap()).collect();
            names.sort_by_key(|n| rank(n));
            names.dedup();
            let many = names.len() > 1;
            let labels: Vec<String> = names
                .iter()
                .flat_map(|name| {
                    let of: Vec<&&Value> = group.iter().filter(|l| l["lever"] == *name).collect();
                    let whole = of.len() == family_size(name);
                    if whole && (many || of.len() > 1) || !has_factor(name) {
                        vec![(w.lever)(name).to_string()]
                    } else {
                        of.iter().map(|l| lever_label(w, l)).collect()
                    }
                })
                .collect();
            let mut item = format!("{}{}{s}", labels.join(w.and), w.colon);
            if names.contains(&"memory_capacity") {
                let patch = |l: &Value| l["largest_patch"].as_u64().unwrap();
                item += &format!(
                    "{}{}{}{}{} -> {}{}{}{} -> {}{}",
                    w.open,
                    lever_label(w, largest),
                    w.colon,
                    w.largest_batch,
                    format::count(base["largest_batch"].as_u64().unwrap()),
                    format::count(largest["largest_batch"].as_u64().unwrap()),
                    w.comma,
                    w.patch,
                    patch(base),
                    patch(largest),
                    w.close
                );
            }
            item
        })
        .collect();
    format!("| {label} | {bound} | {best} | {} |", written.join(w.item))
}

/// The guides' lever tables ("What would help most"): each row's figures are
/// `hsi-gpu estimate`'s for the scenario the row names, in English and Chinese.
#[test]
fn the_guides_lever_tables_are_the_estimates() {
    let rows = [
        (
            "{}",
            "default: HybridSN, Indian Pines, 30 bands, 25 px, batch 64, RTX A5500",
            "默认：HybridSN，Indian Pines，30 个波段，25 像素，批大小 64，RTX A5500",
        ),
        (
            r#"{"batch_per_gpu": 4}"#,
            "the same at batch 4",
            "同上，批大小 4",
        ),
        (
            r#"{"model": {"kind": "preset", "id": "ssftt"}, "patch": 13, "gpu": "rtx_3090"}"#,
            "SSFTT, 13 px, RTX 3090",
            "SSFTT，13 像素，RTX 3090",
        ),
        (
            r#"{"batch_per_gpu": 8192}"#,
            "the default at batch 8192",
            "默认场景，批大小 8192",
        ),
        (
            r#"{"cards": 4}"#,
            "default on 4 x RTX A5500, DDP over PCIe",
            "默认场景，4 张 RTX A5500，经 PCIe 做 DDP",
        ),
    ];
    let reports: Vec<Value> = rows.iter().map(|(s, _, _)| estimate(s)).collect();
    let mut stale = Vec::new();
    for (w, zh_rows) in [(EN, false), (ZH, true)] {
        let doc = repo_file(w.file);
        for ((_, en, zh), report) in rows.iter().zip(&reports) {
            let label = if zh_rows { zh } else { en };
            let expected = lever_row(&w, label, report);
            let stated = doc
                .lines()
                .find(|l| l.starts_with(&format!("| {label} |")))
                .unwrap_or_else(|| panic!("{}: no row for {label}", w.file));
            if stated != expected {
                stale.push(format!(
                    "{}:\n  states  {stated}\n  the CLI {expected}",
                    w.file
                ));
            }
        }
    }
    assert!(stale.is_empty(), "stale lever rows:\n{}", stale.join("\n"));
}

/// `hsi-gpu thesis -` for `scenario`.
fn thesis(scenario: &str) -> Value {
    json(&run(&["thesis", "-"], scenario))
}

fn cells<'a>(map: &'a Value, model: &str) -> Vec<&'a Value> {
    map["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["model"] == model && c["error"].is_null())
        .collect()
}

fn best_is(c: &Value, lever: &str) -> bool {
    c["best"]["lever"] == lever
}

fn best_speedup(c: &Value) -> f64 {
    f(&c["best"]["speedup"])
}

/// The link lever's speed-up in a cell.
fn link_gain(c: &Value) -> f64 {
    let gains = c["gains"].as_array().unwrap();
    f(&gains.iter().find(|g| g["lever"] == "interconnect").unwrap()["speedup"])
}

fn claim<'a>(map: &'a Value, id: &str) -> &'a Value {
    map["claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no claim {id}"))
}

/// `supporting`, `cells` and the verdict of a claim, in the guide's words.
fn counted(map: &Value, id: &str) -> (u64, u64, &'static str, &'static str) {
    let c = claim(map, id);
    let (en, zh) = match c["verdict"].as_str().unwrap() {
        "agrees" => ("agrees", "相符"),
        "partly" => ("partly agrees", "部分相符"),
        "disagrees" => ("disagrees", "不相符"),
        other => panic!("a verdict the guide does not name: {other}"),
    };
    (
        c["supporting"].as_u64().unwrap(),
        c["cells"].as_u64().unwrap(),
        en,
        zh,
    )
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

/// Every `said` is in `text`, else the test fails naming the missing ones.
fn states(file: &str, text: &str, said: &[String]) {
    let missing: Vec<&String> = said.iter().filter(|s| !text.contains(s.as_str())).collect();
    assert!(missing.is_empty(), "{file} should say: {missing:#?}");
}

/// The thesis map on one card as the guides tell it ("What it says today"): the claims'
/// counts and verdicts, the flips, and the speed-ups named, in English and Chinese.
#[test]
fn the_guides_thesis_figures_for_one_card_are_the_maps() {
    let map = thesis("{}");
    let all = map["cells"].as_array().unwrap();
    let (fit, small, fit_v, fit_zh) = counted(&map, "small_models_fit_one_card");
    assert_eq!(fit, small, "the guide says they fit at every patch");
    let (first, first_n, first_v, first_zh) = counted(&map, "capacity_bandwidth_first");
    assert_eq!(
        claim(&map, "capacity_bandwidth_first")["most_often"],
        "compute",
        "the guides say compute is the usual best lever"
    );
    let (outgrow, large, outgrow_v, outgrow_zh) =
        counted(&map, "foundation_models_outgrow_one_card");
    assert_eq!(
        claim(&map, "interconnect_rises_with_scale")["untested"],
        "one_card"
    );
    let flips = map["flips"].as_array().unwrap();
    let compute = |model: &str| {
        cells(&map, model)
            .into_iter()
            .filter(|c| best_is(c, "compute"))
            .map(best_speedup)
    };
    let ssrn = range(compute("SSRN"));
    assert_eq!(cells(&map, "SSRN").len(), compute("SSRN").count());
    let cnn = range(compute("3-D CNN (Hamida)").chain(compute("HybridSN")));
    let cube: Vec<&Value> = ["SSFTT", "SpectralFormer"]
        .iter()
        .flat_map(|m| cells(&map, m))
        .filter(|c| best_is(c, "input_pipeline"))
        .collect();
    let top = cube
        .iter()
        .max_by(|a, b| best_speedup(a).total_cmp(&best_speedup(b)))
        .unwrap();
    // DBDA outgrows the card at its two largest patches; the smallest capacity step
    // that makes the first fit is its best lever.
    let dbda = cells(&map, "DBDA");
    let unfit: Vec<u64> = dbda
        .iter()
        .filter(|c| !c["fits"].as_bool().unwrap())
        .map(|c| c["patch"].as_u64().unwrap())
        .collect();
    assert_eq!(unfit, [64, 128]);
    let dbda64 = dbda.iter().find(|c| c["patch"] == 64).unwrap();
    assert!(best_is(dbda64, "memory_capacity"));
    // Each pair of neighbours a flip crosses, as the guide names them.
    let name = |m: &str| match m {
        "3-D CNN (Hamida)" => "the 3-D CNN".to_string(),
        other => other.to_string(),
    };
    let mut pairs: Vec<String> = flips
        .iter()
        .map(|x| {
            let [a, b] = [&x["smaller"], &x["larger"]].map(|m| name(m.as_str().unwrap()));
            format!("{a} to {b} (")
        })
        .collect();
    pairs.dedup();
    let hybridsn_128 = cells(&map, "HybridSN")
        .into_iter()
        .find(|c| c["patch"] == 128)
        .unwrap();
    assert!(!hybridsn_128["aids"].as_array().unwrap().is_empty());
    let params = |size: &str| {
        let models = map["models"].as_array().unwrap();
        f(&models.iter().find(|m| m["size"] == size).unwrap()["params"])
    };
    let (vit_s, vit_g) = (params("small"), params("giant"));
    let mut said = vec![
        format!(
            "ViT-S ({:.0} M parameters) to ViT-g ({:.2} B,",
            vit_s / 1e6,
            vit_g / 1e9
        ),
        format!("at patches 8, 16, 32, 64 and 128 px: {} cells", all.len()),
        format!("parameters fit at every patch ({fit}/{small}, **{fit_v}**)"),
        format!("SSRN {:.2}-{:.2}x", ssrn.0, ssrn.1),
        format!("the 3-D CNN and HybridSN {:.1}-{:.1}x", cnn.0, cnn.1),
        format!(
            "(up to {:.2}x at {} px)",
            best_speedup(top),
            top["patch"].as_u64().unwrap()
        ),
        format!(
            "even with every aid (capacity x{} makes the 64 px cell fit)",
            factor(&dbda64["best"]["factor"])
        ),
        format!("link in {first} of {first_n} cells: the map **{first_v}**"),
        format!("flips {} times along model size", flips.len()),
        format!(
            "{outgrow} of the {large} foundation-scale cells outgrow the card (**{outgrow_v}**;"
        ),
        format!(
            "HybridSN at 128 px, {:.0} M parameters, is one of them",
            f(&hybridsn_128["params"]) / 1e6
        ),
    ];
    said.extend(pairs);
    states("docs/guide.md", &common::repo_prose("docs/guide.md"), &said);
    let zh = [
        format!(
            "ViT-S（{:.0}00 万参数）到 ViT-g（{:.1} 亿参数",
            vit_s / 1e6,
            vit_g / 1e8
        ),
        format!("小型高光谱模型全部放得下（{fit}/{small}，{fit_zh}）"),
        format!("只在 {first_n} 格中的 {first} 格成立（{first_zh}，最常见的最佳资源是算力）"),
        format!("的 {large} 格中有 {outgrow} 格单卡原样放不下（{outgrow_zh}）"),
        format!("最佳资源沿模型规模改变 {} 次", flips.len()),
    ];
    states(
        "docs/guide.zh.md",
        &common::repo_prose_zh("docs/guide.zh.md"),
        &zh,
    );
}

/// The thesis map on two cards over PCIe: where the bridge is the best lever, by how
/// much, and what it gains ViT-g's tensor-parallel pair.
#[test]
fn the_guides_thesis_figures_for_two_cards_are_the_maps() {
    let map = thesis(r#"{"cards": 2}"#);
    let linked: Vec<(&str, u64)> = map["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| best_is(c, "interconnect"))
        .map(|c| (c["model"].as_str().unwrap(), c["patch"].as_u64().unwrap()))
        .collect();
    let named = [
        ("ViT-B", 8),
        ("ViT-B", 16),
        ("ViT-L", 8),
        ("ViT-L", 16),
        ("ViT-L", 128),
        ("ViT-H", 8),
        ("ViT-H", 16),
    ];
    assert_eq!(
        linked, named,
        "the cells where the guides say the bridge pays most"
    );
    let short = range(
        map["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| best_is(c, "interconnect") && c["patch"].as_u64().unwrap() <= 16)
            .map(best_speedup),
    );
    let baseline = &claim(&map, "interconnect_rises_with_scale")["baseline"];
    let (small, small_linked) = (baseline[0].as_u64().unwrap(), baseline[1].as_u64().unwrap());
    let (s, n, v, zh_v) = counted(&map, "interconnect_rises_with_scale");
    // ViT-g: tensor parallelism over the pair at every patch, the bridge never its best.
    let vit_g = cells(&map, "ViT-g");
    for c in &vit_g {
        assert!(c["aids"]
            .as_array()
            .unwrap()
            .contains(&"tensor_parallel".into()));
        assert!(!best_is(c, "interconnect"));
    }
    assert_eq!(
        vit_g[0]["limit"], "host",
        "at 8 px the host bounds its step"
    );
    let at = |patch: u64| {
        let c = vit_g.iter().find(|c| c["patch"] == patch).unwrap();
        (link_gain(c) - 1.0) * 100.0
    };
    let most = vit_g
        .iter()
        .max_by(|a, b| link_gain(a).total_cmp(&link_gain(b)))
        .unwrap();
    let said = [
        format!(
            "ViT-B to ViT-H at 8 and 16 px ({:.2}-{:.2}x",
            short.0, short.1
        ),
        format!("never for a small HSI model ({small_linked}/{small})"),
        format!(
            "the bridge gains {:.0} % at 16 px and up to {:.0} % at {} px",
            at(16),
            (link_gain(most) - 1.0) * 100.0,
            most["patch"]
        ),
        format!("{s} of {n} foundation cells: **{v}**"),
    ];
    states("docs/guide.md", &common::repo_prose("docs/guide.md"), &said);
    let zh = [
        format!(
            "在 8、16 像素下收益最大（{:.2}-{:.2} 倍）",
            short.0, short.1
        ),
        format!("对小模型从不（{small_linked}/{small}）"),
        format!("基础模型的 {n} 格中有 {s} 格以它为最佳（{zh_v}）"),
    ];
    states(
        "docs/guide.zh.md",
        &common::repo_prose_zh("docs/guide.zh.md"),
        &zh,
    );
}

/// The thesis map on four cards: the link is never the best lever, and what the
/// tensor-parallel pairs gain from their bridges.
#[test]
fn the_guides_thesis_figures_for_four_cards_are_the_maps() {
    let map = thesis(r#"{"cards": 4}"#);
    let (s, n, _, _) = counted(&map, "interconnect_rises_with_scale");
    let most = map["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            c["aids"]
                .as_array()
                .unwrap()
                .contains(&"tensor_parallel".into())
        })
        .map(link_gain)
        .fold(f64::NEG_INFINITY, f64::max);
    let said = [
        format!("so the link is never the best lever ({s}/{n})"),
        format!(
            "the tensor-parallel pairs gain at most {:.0} % from their bridges",
            (most - 1.0) * 100.0
        ),
    ];
    assert_eq!(s, 0, "the guides say the link is never the best lever");
    states("docs/guide.md", &common::repo_prose("docs/guide.md"), &said);
    states(
        "docs/guide.zh.md",
        &common::repo_prose_zh("docs/guide.zh.md"),
        &[format!("互联从不是最佳资源（{s}/{n}）")],
    );
}

/// docs/formats.md shows the start of `echo '{}' | hsi-gpu summary -`: it is what the
/// command prints, line for line, up to the sample's closing `...`.
#[test]
fn the_formats_summary_sample_is_the_commands_output() {
    let doc = repo_file("docs/formats.md");
    let intro = "The start of `echo '{}' | hsi-gpu summary -`";
    let after = &doc[doc.find(intro).expect("formats.md introduces the sample")..];
    let block = after
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("a text block after the introduction");
    let sample: Vec<&str> = block.lines().collect();
    assert_eq!(sample.last(), Some(&"  ..."), "the sample ends with ...");
    let out = run(&["summary", "-"], "{}");
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).unwrap();
    let printed: Vec<&str> = printed.lines().collect();
    let shown = &sample[..sample.len() - 1];
    assert!(
        printed.len() > shown.len(),
        "the sample is longer than the output"
    );
    assert_eq!(
        shown.join("\n"),
        printed[..shown.len()].join("\n"),
        "docs/formats.md's sample is not what `echo '{{}}' | hsi-gpu summary -` prints"
    );
}

/// The section of `doc` from `heading` to the next heading of its level.
fn section<'a>(doc: &'a str, heading: &str) -> &'a str {
    let start = doc
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no section {heading}"));
    let rest = &doc[start + heading.len() + 2..];
    let level = heading.split(' ').next().unwrap();
    match rest.find(&format!("\n{level} ")) {
        Some(end) => &rest[..end],
        None => rest,
    }
}

/// The cells of the table row whose first cell is `` `field` ``.
fn row<'a>(text: &'a str, field: &str) -> Vec<&'a str> {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("| `{field}` |")))
        .unwrap_or_else(|| panic!("no row for `{field}`"));
    line.trim_matches('|').split(" | ").map(str::trim).collect()
}

/// What `hsi-gpu options` allows, by its one-line error on `document`.
fn allowed(document: &str) -> String {
    let out = run(&["options", "-"], document);
    let err = common::one_line_error(&out);
    err.split("allowed: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{err}"))
        .trim()
        .to_string()
}

/// docs/formats.md's Comparison JSON: a row for every field the reader knows, each
/// range the one the command's error gives, each default the one it takes, the
/// article's options named, and the example accepted.
#[test]
fn the_comparison_format_documents_every_field_with_its_range_and_default() {
    use hsi_gpu_core::compare::{decision::DecisionInputs, CompareOption, Comparison};
    let doc = repo_file("docs/formats.md");
    let text = section(&doc, "## Comparison JSON");
    let mut fields: Vec<String> = Comparison::FIELDS.iter().map(|f| f.to_string()).collect();
    fields.extend(
        CompareOption::FIELDS
            .iter()
            .map(|f| format!("options[].{f}")),
    );
    fields.extend(
        DecisionInputs::FIELDS
            .iter()
            .map(|f| format!("decision.{f}")),
    );
    let mut documented: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    documented.sort();
    fields.sort();
    assert_eq!(documented, fields, "a row per field the reader knows");
    // Ranges, as the errors state them ("an integer from 1 to 64", "one of ...").
    let out_of_range = [
        ("options", r#"{"options": []}"#),
        (
            "options[].label",
            &format!(r#"{{"options": [{{"label": "{}"}}]}}"#, "x".repeat(81)),
        ),
        ("decision.team_size", r#"{"decision": {"team_size": 0}}"#),
        ("decision.priority", r#"{"decision": {"priority": "?"}}"#),
        ("decision.budget_usd", r#"{"decision": {"budget_usd": -1}}"#),
        (
            "decision.ops_hours_per_month",
            r#"{"decision": {"ops_hours_per_month": -1}}"#,
        ),
        (
            "decision.simplicity_margin",
            r#"{"decision": {"simplicity_margin": -1}}"#,
        ),
    ];
    for (field, document) in out_of_range {
        let allowed = allowed(document);
        let range = &row(text, field)[1];
        let said = match allowed.strip_prefix("one of ") {
            Some(ids) => ids
                .split(", ")
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(" or "),
            None => allowed.replace("from 1 to 8 options", "1 to 8 options"),
        };
        assert!(
            range.contains(&said),
            "`{field}`: the CLI allows {allowed}; the doc says {range}"
        );
    }
    // Defaults: the decision inputs' own, and the article's option set by label.
    let defaults = serde_json::to_value(DecisionInputs::default()).unwrap();
    for (key, value) in defaults.as_object().unwrap() {
        let default = row(text, &format!("decision.{key}"))[2];
        let said = match value {
            Value::String(id) => format!("`{id}`"),
            other => other.to_string(),
        };
        assert!(
            default.starts_with(&said),
            "`decision.{key}` defaults to {said}; the doc says {default}"
        );
    }
    let article = json(&run(&["options", "-"], "{}"));
    let labels: Vec<&str> = article["report"]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["label"].as_str().unwrap())
        .collect();
    let default = row(text, "options")[2];
    assert!(
        default.contains(&format!(
            "{}: {}",
            count_word(labels.len()),
            labels.join(", ")
        )),
        "the article's options are {labels:?}; the doc says {default}"
    );
    let example = text
        .split("```json\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("an example");
    json(&run(&["options", "-"], example));
}

fn count_word(n: usize) -> &'static str {
    [
        "none", "one", "two", "three", "four", "five", "six", "seven", "eight",
    ][n]
}

/// docs/formats.md's Report table names every field `hsi-gpu estimate` writes, at the
/// top and in `memory`, `layers[]`, `lever_baseline`, `levers[]`, `inference` and
/// `parallel` (a field added to the Report fails here until it is documented).
#[test]
fn the_report_table_names_every_field_the_estimate_writes() {
    let doc = repo_file("docs/formats.md");
    let text = section(&doc, "## Report JSON");
    let report =
        estimate(r#"{"model": {"kind": "preset", "id": "vit", "size": "small"}, "patch": 32}"#);
    let default = estimate("{}");
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    let first_cells: String = text
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l[2..].split(" | ").next())
        .collect::<Vec<_>>()
        .join(" ");
    let mut missing = Vec::new();
    for key in keys(&default) {
        if ![format!("`{key}`"), format!("`{key}[]`")]
            .iter()
            .any(|k| first_cells.contains(k.as_str()))
        {
            missing.push(key);
        }
    }
    let mut layer_keys: Vec<String> = Vec::new();
    for r in [&default, &report] {
        for l in r["layers"].as_array().unwrap() {
            layer_keys.extend(keys(l));
        }
    }
    layer_keys.sort();
    layer_keys.dedup();
    let parts: [(&str, Vec<String>); 6] = [
        ("memory", keys(&default["memory"])),
        ("layers[]", layer_keys),
        ("lever_baseline", keys(&default["lever_baseline"])),
        ("levers[]", keys(&default["levers"][0])),
        ("inference", keys(&default["inference"])),
        ("parallel", keys(&default["parallel"])),
    ];
    for (part, fields) in parts {
        let cells = row(text, part).join(" | ");
        for key in fields {
            let named = [format!("`{key}`"), format!("`{key}[]`")]
                .iter()
                .any(|k| cells.contains(k.as_str()))
                || text.contains(&format!("`{part}.{key}`"));
            if !named {
                missing.push(format!("{part}.{key}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/formats.md's Report table should name {missing:?}"
    );
}

/// The guide's evaluation and prediction figures for the default scenario are
/// `hsi-gpu estimate`'s `inference` and `perf.epoch.run_s`.
#[test]
fn the_guides_inference_figures_are_the_estimates() {
    let r = estimate("{}");
    let i = &r["inference"];
    let run_s = f(&r["perf"]["epoch"]["run_s"]);
    let on = |gpu: &str| {
        let d = i["deployment"].as_array().unwrap();
        f(&d.iter().find(|d| d["gpu"] == gpu).unwrap()["scene_prediction_s"])
    };
    let n = |key: &str| format::count(i[key].as_u64().unwrap());
    let said = format!(
        "{} test pixels, {} scene pixels; largest no-grad batch {} on the RTX A5500; one test \
         pass {:.2} s, a test pass after every epoch {:.1} s ({:.1}x the {run_s:.1} s training \
         run), whole-scene prediction {:.2} s; on a T4 {:.1} s, a Jetson AGX Orin {:.1} s, an \
         L4 {:.1} s.",
        n("test_pixels"),
        n("scene_pixels"),
        n("max_batch_no_grad"),
        f(&i["eval_pass_s"]),
        f(&i["eval_every_epoch_s"]),
        f(&i["eval_every_epoch_s"]) / run_s,
        f(&i["scene_prediction_s"]),
        on("T4"),
        on("Jetson AGX Orin 64 GB"),
        on("L4"),
    );
    states(
        "docs/guide.md",
        &common::repo_prose("docs/guide.md"),
        &[said],
    );
}

/// Figures the docs take from `hsi-gpu estimate` on named scenarios: HybridSN's
/// parameters and model states (the article's section 5.2), the default total the
/// browser tests read, ViT-B's saved bytes with fused and explicit attention and LoRA's
/// adapters; and the errors formats.md quotes.
#[test]
fn the_docs_other_estimate_figures_are_the_clis() {
    let r = estimate("{}");
    let m = &r["memory"];
    let params = format::count(r["params"].as_u64().unwrap());
    let model_states = f(&m["weights"]) + f(&m["gradients"]) + f(&m["optimizer_states"]);
    states(
        "docs/guide.md",
        &common::repo_prose("docs/guide.md"),
        &[format!(
            "(HybridSN, {params} parameters) are {:.3} GB",
            model_states / 1e9
        )],
    );
    states(
        "docs/guide.zh.md",
        &common::repo_prose_zh("docs/guide.zh.md"),
        &[format!(
            "（HybridSN，{params} 个参数）的权重、梯度和 Adam 状态共 {:.3} GB",
            model_states / 1e9
        )],
    );
    states(
        "docs/development.md",
        &common::repo_prose("docs/development.md"),
        &[format!(
            "for the per-GPU total memory (\"{}\" on the default scenario",
            format::bytes(f(&m["total"]))
        )],
    );
    // ViT-B at 224 px, batch 64, 3 bands (validation.md's foundation-model cases).
    let vit = |rest: &str| {
        estimate(&format!(
            r#"{{"model": {{"kind": "preset", "id": "vit", "size": "base"}}, "bands": 3,
                "patch": 224, "batch_per_gpu": 64{rest}}}"#
        ))
    };
    let saved = |r: &Value| -> f64 {
        r["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| f(&l["saved_bytes"]))
            .sum::<f64>()
            / 1e9
    };
    let [sdpa, math, sdpa_bf16, math_bf16] = [
        r#", "precision": "fp32", "attention": "sdpa""#,
        r#", "precision": "fp32", "attention": "math""#,
        r#", "precision": "amp_bf16", "attention": "sdpa""#,
        r#", "precision": "amp_bf16", "attention": "math""#,
    ]
    .map(|rest| saved(&vit(rest)));
    let full = vit(r#", "precision": "fp32""#);
    let lora = vit(
        r#", "precision": "fp32", "finetune": {"mode": "lora", "rank": 8, "targets": ["qkv", "proj"]}"#,
    );
    let adapters = f(&lora["trainable_params"]) / 1e6;
    let adam = f(&lora["memory"]["optimizer_states"]) / 1e6;
    let adam_full = f(&full["memory"]["optimizer_states"]) / 1e9;
    states(
        "docs/models.md",
        &common::repo_prose("docs/models.md"),
        &[
            format!(
                "`\"sdpa\"` keeps {sdpa:.1} GB against `\"math\"`'s {math:.1} GB in fp32 \
                 ({sdpa_bf16:.1} against {math_bf16:.1} GB under bf16 autocast)"
            ),
            format!(
                "trains {adapters:.2} M parameters (12 x 8 x (768 + 2304 + 768 + 768)): \
                 {adam:.1} MB of Adam states instead of {adam_full:.2} GB"
            ),
        ],
    );
    states(
        "docs/guide.zh.md",
        &common::repo_prose_zh("docs/guide.zh.md"),
        &[
            format!("`sdpa` 保存 {sdpa:.1} GB，`math` 保存 {math:.1} GB（fp32；"),
            format!(
                "只为 {adapters:.2} M 个适配器参数保存 Adam 状态（{adam:.1} MB，全参数训练为 \
                 {adam_full:.2} GB）"
            ),
        ],
    );
    // The errors formats.md quotes are the CLI's.
    let formats = common::repo_prose("docs/formats.md");
    let batch = common::one_line_error(&run(&["estimate", "-"], r#"{"batch_per_gpu": 0}"#));
    let typo = common::one_line_error(&run(&["estimate", "-"], r#"{"perf": {"overlap_typo": 1}}"#));
    assert!(
        formats.contains(&format!("(`{}`)", batch.trim())),
        "{batch}"
    );
    let (head, tail) = (
        "perf.overlap_typo: got unknown field",
        "; allowed: a known field: compute_efficiency,",
    );
    assert!(formats.contains(&format!("(`{head} ...{tail}")));
    assert!(
        typo.starts_with(&format!("hsi-gpu: {head}")) && typo.contains(tail),
        "{typo}"
    );
}
