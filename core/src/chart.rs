//! Chart geometry (stub, being written).
