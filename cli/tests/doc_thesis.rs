//! The guides' thesis figures ("What it says today", docs/guide.md and docs/guide.zh.md)
//! are `hsi-gpu thesis`'s on one, two and four cards: the claims' counts and verdicts, the
//! flips and the speed-ups named.

mod common;

use common::docs::{f, factor, states};
use common::{json, run};
use serde_json::Value;

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
