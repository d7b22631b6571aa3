//! Dataset catalog: the public HSI benchmark scenes of `shared/reference/facts.md`. An
//! epoch is `labeled_pixels x workload.train_fraction` samples (one patch per labeled
//! pixel, the usual patch-classification protocol).

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DatasetSpec {
    pub id: &'static str,
    pub name: &'static str,
    pub height: u32,
    pub width: u32,
    /// Bands the sensor delivers.
    pub bands_raw: u32,
    /// Bands left after the customary removal of water-absorption / noisy bands.
    pub bands_used: u32,
    pub classes: u32,
    /// Pixels with a ground-truth label (background excluded).
    pub labeled_pixels: u64,
    pub source: &'static str,
    /// Fields without a primary source (names as in this struct).
    pub unverified: &'static [&'static str],
}

pub fn dataset_by_id(id: &str) -> Option<&'static DatasetSpec> {
    DATASETS.iter().find(|d| d.id == id)
}

pub fn dataset_ids() -> Vec<&'static str> {
    DATASETS.iter().map(|d| d.id).collect()
}

const EHU: &str = "Grupo de Inteligencia Computacional (UPV/EHU) hyperspectral scenes page";
const WHU: &str = "RSIDEA WHU-Hi dataset page (Zhong et al., RSE 2020)";

#[allow(clippy::too_many_arguments)]
const fn scene(
    id: &'static str,
    name: &'static str,
    height: u32,
    width: u32,
    bands_raw: u32,
    bands_used: u32,
    classes: u32,
    labeled_pixels: u64,
    source: &'static str,
    unverified: &'static [&'static str],
) -> DatasetSpec {
    DatasetSpec {
        id,
        name,
        height,
        width,
        bands_raw,
        bands_used,
        classes,
        labeled_pixels,
        source,
        unverified,
    }
}

#[rustfmt::skip]
pub static DATASETS: &[DatasetSpec] = &[
    scene("indian_pines", "Indian Pines", 145, 145, 224, 200, 16, 10_249, EHU, &[]),
    scene("pavia_university", "Pavia University", 610, 340, 115, 103, 9, 42_776, EHU, &[]),
    scene("pavia_centre", "Pavia Centre", 1096, 715, 102, 102, 9, 148_152, EHU, &[]),
    scene("salinas", "Salinas", 512, 217, 224, 204, 16, 54_129, EHU, &[]),
    scene("ksc", "Kennedy Space Center", 512, 614, 224, 176, 13, 5_211, EHU, &[]),
    scene("botswana", "Botswana", 1476, 256, 242, 145, 14, 3_248, EHU, &[]),
    scene("houston2013", "Houston 2013", 349, 1905, 144, 144, 15, 15_029, "IEEE GRSS 2013 Data Fusion Contest", &["labeled_pixels"]),
    // No primary count of labeled pixels was found; the figure used is the whole scene,
    // an upper bound, so epoch times are upper bounds too.
    scene("houston2018", "Houston 2018", 601, 2384, 48, 48, 20, 601 * 2384, "IEEE GRSS 2018 Data Fusion Contest", &["labeled_pixels"]),
    scene("whu_hi_longkou", "WHU-Hi-LongKou", 550, 400, 270, 270, 9, 204_542, WHU, &["labeled_pixels"]),
    scene("whu_hi_hanchuan", "WHU-Hi-HanChuan", 1217, 303, 274, 274, 16, 257_530, WHU, &["labeled_pixels"]),
    scene("whu_hi_honghu", "WHU-Hi-HongHu", 940, 475, 270, 270, 22, 386_693, WHU, &["labeled_pixels"]),
    scene("chikusei", "Chikusei", 2517, 2335, 128, 128, 19, 77_592, "Yokoya & Iwasaki, Univ. of Tokyo tech. report SAL-2016-05-27", &[]),
];
