//! operator-derive's tests that build crates of their own: `tests/ui.rs` (compile errors,
//! with trybuild), `tests/json_schema.rs` and `tests/one_error_per_mistake.rs`. The library
//! holds only the types `operator-gen types` generates from the repository's CRDs
//! ([`types_from_crd`]), compiled here with the derives, and checked by
//! `tests/types_from_crd.rs`; see `Cargo.toml` for why these tests are not in
//! operator-derive.

pub mod types_from_crd;
