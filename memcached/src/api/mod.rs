//! The memcached operator's API types.

pub mod v1alpha1;
