//! What `#[schemars(...)]`, `#[validate(...)]` (validator) and `#[garde(...)]` say about
//! values is in the CRD too, so that the schemars schema, the runtime checks and the CRD
//! agree.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", kind = "Ledger")]
pub struct Ledger {
    pub metadata: ObjectMeta,
    pub spec: LedgerSpec,
}

#[derive(Schema, JsonSchema, Validate)]
#[serde(rename_all = "camelCase")]
pub struct LedgerSpec {
    /// Lengths count characters of a string...
    #[schemars(length(min = 1, max = 63))]
    pub owner: String,
    /// ...items of a list...
    #[validate(length(max = 8))]
    pub entries: Vec<String>,
    /// ...and entries of a map.
    #[garde(length(min = 1))]
    pub labels: BTreeMap<String, String>,
    #[schemars(length(equal = 3))]
    pub currency: String,
    #[validate(range(min = -100, max = 100))]
    pub balance: i32,
    #[validate(range(exclusive_min = 0))]
    pub rate: i64,
    #[garde(pattern(r"^[a-z0-9-]+$"))]
    pub slug: String,
    #[schemars(regex(pattern = "^[A-Z]{2}$"))]
    pub country: String,
    #[validate(email)]
    #[validate(custom(function = "not_blocked"))]
    pub contact: Option<String>,
    #[garde(url)]
    pub homepage: Option<String>,
    /// A check held in Rust code comes with a marker that says the same.
    #[validate(regex(path = *ACCOUNT))]
    #[validation(pattern = "^[0-9]{8}$")]
    pub account: String,
    /// A regex the crate declares, named as validator <= 0.16 names it, is read from its
    /// item.
    #[validate(regex = "TICKER")]
    pub ticker: String,
    /// Bounds named by path are read from their `const`s.
    #[validate(range(min = limits::MIN_SHARES, max = limits::MAX_SHARES))]
    pub shares: i64,
    #[schemars(required)]
    #[schemars(title = "Memo")]
    pub memo: Option<String>,
    #[garde(dive)]
    #[schemars(inline)]
    pub notes: Vec<String>,
}

lazy_static::lazy_static! {
    static ref TICKER: regex::Regex = regex::Regex::new("^[A-Z]{3,5}$").unwrap();
}

mod limits {
    pub const MIN_SHARES: i64 = 1;
    pub const MAX_SHARES: i64 = 1_000_000;
}
