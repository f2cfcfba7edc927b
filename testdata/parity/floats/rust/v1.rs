//! The floats case: `f32`/`f64` fields, allowed only with `--allow-dangerous-types`
//! (controller-gen's `crd:allowDangerousTypes`), with bounds, steps and defaults that are
//! not whole numbers.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

/// RatioSpec holds floating-point settings.
#[derive(Schema)]
pub struct RatioSpec {
    /// Share of traffic, a fraction.
    #[validation(minimum = 0, maximum = 1)]
    pub share: f64,

    /// Step is a multiple of a quarter.
    #[validation(multiple_of = 0.25)]
    pub step: Option<f32>,

    /// Threshold above a half.
    #[validation(minimum = 0.5, exclusive_minimum)]
    #[schema(default = 1.5)]
    pub threshold: Option<f64>,

    /// Weights are fractions.
    #[validation(items(maximum = 2.5))]
    pub weights: Option<Vec<f64>>,

    /// Factors by name.
    pub factors: Option<BTreeMap<String, f32>>,

    /// Whole is an integer next to the floats.
    pub whole: Option<i32>,
}

/// Ratio exercises float fields.
#[derive(CustomResource)]
#[resource(group = "floats.parity.example.com", version = "v1", kind = "Ratio")]
pub struct Ratio {
    pub metadata: ObjectMeta,
    pub spec: RatioSpec,
}
