//! Dataset catalog (stub, being written).
pub struct DatasetSpec {
    pub id: &'static str,
}
pub fn dataset_by_id(id: &str) -> Option<&'static DatasetSpec> {
    DATASETS.iter().find(|d| d.id == id)
}
pub fn dataset_ids() -> Vec<&'static str> {
    DATASETS.iter().map(|d| d.id).collect()
}
pub static DATASETS: &[DatasetSpec] = &[DatasetSpec { id: "indian_pines" }];
