//! The guides' lever tables ("What would help most", docs/guide.md and docs/guide.zh.md)
//! are `hsi-gpu estimate`'s: a stale row fails here, and the message gives the row the CLI
//! prints now.

mod common;

use common::docs::{estimate, f, factor};
use common::repo_file;
use hsi_gpu_core::format;
use serde_json::Value;

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
