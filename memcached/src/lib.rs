//! The memcached operator: API types (`api`) and the reconciler (`controller`).

pub mod api;
pub mod controller;
