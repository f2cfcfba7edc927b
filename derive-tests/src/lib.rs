//! operator-derive's tests that build crates of their own: `tests/ui.rs` (compile errors,
//! with trybuild), `tests/json_schema.rs` and `tests/one_error_per_mistake.rs`. The library
//! is empty; see `Cargo.toml` for why these tests are not in operator-derive.
