//! The plurals case: kinds whose default plural is irregular, compound or odd, and which
//! operator-gen must name as controller-gen does (through flect). No kind sets a plural.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Person (resource people) is an irregular noun.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Person {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Child (resource children) takes an -en plural.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Child {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Index (resource indices) takes the Latin -ices plural.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Index {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Mouse (resource mice) changes its vowel in the plural.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Mouse {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Cactus (resource cacti) takes the Latin -i plural.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Cactus {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Quiz (resource quizzes) doubles its z before -es.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Quiz {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Analysis (resource analyses) turns -is into -es.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Analysis {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Matrix (resource matrices) turns -trix into -trices.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Matrix {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Datum (resource data) turns -um into -a.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Datum {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Leaf (resource leaves) turns -f into -ves.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Leaf {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Knife (resource knives) turns -fe into -ves.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Knife {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Goose (resource geese) changes its vowels in the plural.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Goose {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Series (resource series) is the same in the plural.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Series {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Species (resource species) is the same in the plural.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Species {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Sheep (resource sheep) is the same in the plural.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Sheep {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Fish (resource fish) is the same in the plural.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Fish {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Criterion (resource criteria) turns -on into -a.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Criterion {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Vertex (resource vertices) turns -ex into -ices.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Vertex {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Memcached (resource memcacheds) just adds an s.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Memcached {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Policy (resource policies) turns a y after a consonant into -ies.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Policy {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Gateway (resource gateways) keeps a y after a vowel.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Gateway {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Box (resource boxes) adds -es after an x.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Box {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Proxy (resource proxies) turns a y after a consonant into -ies.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Proxy {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Endpoints (resource endpoints) already ends in s and stays as it is.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Endpoints {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// Address (resource addresses) adds -es after ss.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct Address {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// ClusterPolicy (resource clusterpolicies) inflects only its last word, Policy.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct ClusterPolicy {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// SalesPerson (resource salespeople) inflects its last word Person irregularly.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct SalesPerson {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// DataIndex (resource dataindices) inflects its last word Index irregularly.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct DataIndex {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// FishTank (resource fishtanks) ends in a regular word, whatever its first word is.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct FishTank {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// BigMouse (resource bigmice) inflects its last word Mouse irregularly.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct BigMouse {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// HTTPRoute (resource httproutes) starts with an acronym and ends in a regular word.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct HTTPRoute {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// XYPerson (resource xypersons) is a single word to flect, so Person is not seen.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct XYPerson {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}

/// ZoneDns (resource zonednsdnses) ends in a mixed-case acronym, which flect appends to.
#[derive(CustomResource)]
#[resource(group = "plurals.parity.example.com", version = "v1")]
pub struct ZoneDns {
    pub metadata: ObjectMeta,
    /// Size is a small number.
    #[validation(minimum = 0)]
    pub size: Option<i32>,
}
