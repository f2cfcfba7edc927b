//! The gates a run's output passes before it is written: the compatibility gate
//! ([`compat`]: a CRD against the one released before it) and the size budgets
//! ([`size`]: what the API server and `kubectl apply` accept). They read the finished
//! objects and files, never the sources, and sit beside the pipeline rather than in it.

pub mod compat;
pub mod size;
