//! Memory model (being written).
pub const DEFAULT_CUDA_CONTEXT_BYTES: u64 = 500 << 20;
pub const DEFAULT_FRAGMENTATION: f64 = 0.05;
pub const DEFAULT_DRIVER_RESERVED_BYTES: u64 = 0;
