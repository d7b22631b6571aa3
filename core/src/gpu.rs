//! GPU catalog (stub, being written).
pub struct GpuSpec {
    pub id: &'static str,
    pub name: &'static str,
    pub memory_bytes: u64,
}
pub fn gpu_by_id(id: &str) -> Option<&'static GpuSpec> {
    GPUS.iter().find(|g| g.id == id)
}
pub fn gpu_ids() -> Vec<&'static str> {
    GPUS.iter().map(|g| g.id).collect()
}
pub static GPUS: &[GpuSpec] = &[GpuSpec { id: "rtx_a5500", name: "RTX A5500", memory_bytes: 24 << 30 }];
