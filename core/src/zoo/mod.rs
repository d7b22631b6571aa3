//! Model zoo (stub, being written).
